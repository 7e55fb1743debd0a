"""A LlamaIndex block is written into a reproduction as the constructor call that makes it again, with the
fields its own validators work out left to them: a block whose media type LlamaIndex guessed is written
without it, so the script runs the guess, as the adapter's call did."""

from __future__ import annotations

import mimetypes

from pydantic import BaseModel, model_validator

from wireconf.repro.llamaindex_template import UnwritableInput, _constructed


class Block(BaseModel):
    """Like LlamaIndex's DocumentBlock: the media type guessed from the URL when none is given."""

    url: str
    title: str = "input"
    mimetype: str | None = None

    @model_validator(mode="after")
    def _guess(self) -> Block:
        if self.mimetype is None:
            self.mimetype = mimetypes.guess_type(self.url)[0]
        return self


class Drifting(BaseModel):
    """A block its own fields do not make again."""

    n: int = 0

    @model_validator(mode="after")
    def _bump(self) -> Drifting:
        self.n += 1
        return self


def test_a_guessed_field_is_left_to_the_validator_and_a_given_one_kept():
    assert _constructed(Block(url="https://x/doc.pdf")) == "Block(url='https://x/doc.pdf')"
    given = Block(url="https://x/doc.bin", mimetype="application/pdf", title="t")
    assert _constructed(given) == "Block(url='https://x/doc.bin', title='t', mimetype='application/pdf')"


def test_a_block_not_made_again_from_its_fields_is_refused():
    try:
        _constructed(Drifting())
    except UnwritableInput:
        return
    raise AssertionError("a block its fields do not make again was written")
