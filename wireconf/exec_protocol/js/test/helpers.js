// A harness stand-in for the tests: feeds the client lines and collects what it sends.
import { PassThrough } from "node:stream";
import { Channel } from "../index.js";

export function fakeHarness() {
  const input = new PassThrough();
  const sent = [];
  const waiting = [];
  const write = (text) => {
    for (const line of text.split("\n").filter(Boolean)) {
      const message = JSON.parse(line);
      if (waiting.length) waiting.shift()(message);
      else sent.push(message);
    }
  };
  return {
    channel: new Channel({ input, write }),
    /** Send one message to the runtime. */
    push(message) {
      input.write(JSON.stringify(message) + "\n");
    },
    /** The next message the runtime sends. */
    next() {
      return sent.length ? Promise.resolve(sent.shift()) : new Promise((resolve) => waiting.push(resolve));
    },
    end() {
      input.end();
    },
  };
}
