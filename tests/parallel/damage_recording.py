#!/usr/bin/env python3
"""Damages one block in the middle of a tideline-recording/2 records.tsv, in one of three ways
that each check of a block must catch (docs/reference/recordings.md):

  payload  a byte of its records flipped: the payload's CRC fails
  header   a digit of its at_ms flipped: the header's CRC fails
  count    its line count one more, the header's CRC made right: only the count check fails

Usage: damage_recording.py RECORDS_TSV payload|header|count
Prints "at byte B)", the damaged block's byte as the reader's error names it."""
import sys


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def blocks(text: bytes):
    """(start, header end, payload end) of each block."""
    at = 0
    while at < len(text):
        nl = text.index(b"\n", at)
        fields = text[at:nl].split(b"\t")
        end = nl + 1 + int(fields[5])
        yield at, nl, end
        at = end


def main() -> None:
    path, how = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        text = bytearray(f.read())
    raw = [b for b in blocks(bytes(text)) if text[b[0] + 10 : b[0] + 11] == b"R"]
    if len(raw) < 3:
        sys.exit(f"{path}: only {len(raw)} blocks of raw lines; need 3 or more")
    index = len(raw) // 2
    start, nl, end = raw[index]
    fields = bytes(text[start:nl]).split(b"\t")
    if how == "payload":
        at = (nl + 1 + end) // 2
        while text[at] == ord("\n"):
            at += 1
        text[at] ^= 1
    elif how == "header":
        at = start + len(b"\t".join(fields[:2])) + 1  # the first digit of at_ms
        text[at] = ord("1") if text[at] != ord("1") else ord("2")
    elif how == "count":
        fields[4] = str(int(fields[4]) + 1).encode()
        rest = b"\t".join(fields[1:])
        header = b"#%08x\t" % crc32c(rest) + rest
        text[start:nl] = header
    else:
        sys.exit(f"unknown damage {how!r}: payload, header or count")
    with open(path, "wb") as f:
        f.write(text)
    print(f"at byte {start})")


main()
