"""What a run leaves behind: the JSONL report and its renderings (Markdown, JUnit, HTML, badge), the
baseline file of the CI gate, and the findings page."""
