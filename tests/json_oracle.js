// How Claude Code reads a journal, by JavaScript's own JSON.parse: the oracle wftop's reader
// is held to (tests/json_oracle.py drives it).
//
// One request a line on stdin: the path of a JSONL file. One answer a line on stdout:
//   {"records": [[line, type, key], ...], "problems": [line, ...], "unknown": n,
//    "started": n, "result": n, "failed": n}
// `unknown` counts the records whose type is none the CLI writes (its reader skips them).
// The file is read as UTF-8 text (invalid bytes read as U+FFFD) and cut at each "\n"; every
// piece is JSON.parse'd. An empty piece is skipped; one that does not parse, or is not an
// object, is a problem. A last piece without its "\n" is a record only when it parses as an
// object (a writer may be mid-line): otherwise it is neither. `type` and `key` are given
// when they are strings (null otherwise), made well-formed: a lone surrogate, which a
// JavaScript string may hold, reads as U+FFFD, as wftop documents it reads one (a Python
// string holding one cannot be written as UTF-8). Lines are numbered from 1, empty ones
// counted.
"use strict";

const fs = require("fs");
const readline = require("readline");

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// Every type of line the CLI writes in a journal; the CLI's reader skips a line of any other.
const LINE_TYPES = new Set([
  "launched", "started", "result", "failed", "resumed", "restoring", "restored",
]);

function wellFormed(text) {
  return text.replace(LONE, "\ufffd");
}

function read(path) {
  const text = fs.readFileSync(path).toString("utf8");
  const pieces = text.split("\n");
  const last = pieces.length - 1; // the piece after the last "\n" ("" when the file ends so)
  const answer = { records: [], problems: [], unknown: 0, started: 0, result: 0, failed: 0 };
  pieces.forEach((piece, index) => {
    if (piece === "") return;
    let value;
    let parsed = true;
    try {
      value = JSON.parse(piece);
    } catch (error) {
      parsed = false;
    }
    if (!parsed || !isObject(value)) {
      if (index !== last) answer.problems.push(index + 1);
      return;
    }
    const type = typeof value.type === "string" ? wellFormed(value.type) : null;
    const key = typeof value.key === "string" ? wellFormed(value.key) : null;
    answer.records.push([index + 1, type, key]);
    if (!(typeof value.type === "string" && LINE_TYPES.has(value.type))) answer.unknown += 1;
    if (type === "started" || type === "result" || type === "failed") answer[type] += 1;
  });
  return answer;
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (path) => {
  let answer;
  try {
    answer = read(path);
  } catch (error) {
    answer = { error: String(error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
