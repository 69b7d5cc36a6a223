//! `guide`: the wire format and the TFRecord frame on one screen, a card to keep beside the
//! inspector. Each line names where a bundled record shows it under `hex --explain` (the
//! repository's `testdata/`), or the `encode` command that works it out.

use std::io::Write;

use anyhow::Result;
use clap::Args;

use super::Status;

#[derive(Debug, Args)]
pub struct GuideArgs {}

/// The card. Runtime-dependent behaviour is said to be so.
pub const CARD: &str = "\
The protobuf wire format and the TFRecord frame on one screen.
M = testdata/mnist_like.tfrecord, E = testdata/examples.tfrecord: see each line with
`tfr-inspect hex --explain FILE -n 0` at the byte given, or run the `encode` shown.

TFRecord frame  u64 length (little-endian) | masked crc32c of it | payload | masked crc32c of it
                mask(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8        M bytes 0, 8, 887
A field         tag, then its value; tag = field_number << 3 | wire_type, a varint   M byte 12
Wire types      0 VARINT  int32 int64 uint32 uint64 sint32 sint64 bool enum      M byte 30
                1 I64     fixed64 sfixed64 double: 8 bytes       encode --type double 25.4
                2 LEN     varint length, then that many bytes: string, bytes, messages,
                          packed repeated fields, map entries                  M bytes 12-13
                3 SGROUP, 4 EGROUP  a group's start and end (deprecated)    encode --tag 2 3
                5 I32     fixed32 sfixed32 float: 4 bytes                        E byte 91
                6, 7      do not exist: parsers reject the message
Varint          7 bits a byte, lowest group first; top bit 1 = another byte follows;
                at most 10 bytes (64 bits)                        M byte 13, encode 300
                (Go's protowire also rejects a 10th byte of 2 or more; others drop its bits)
Field numbers   1 to 2^29 - 1 = 536870911; 19000-19999 reserved for protobuf itself
Negative int32, int64   two's complement sign-extended to 64 bits: always 10 bytes
                                                               encode --type int32 -1
sint32, sint64  zigzag: (n << 1) ^ (n >> 63); read back (n >> 1) ^ -(n & 1)
                0, -1, 1, -2 -> 0, 1, 2, 3                  encode --type sint64 -150
Fixed width     little-endian, lowest byte first: read the bytes reversed    E byte 91
Packed          repeated numbers in one LEN, back to back (proto3's default)  M byte 29
Maps            repeated entry messages: key = field 1, value = field 2  M bytes 15-30
Occurrences     a scalar sent twice: the last wins; a message sent twice: they merge
Unknown field   a number the type does not declare: parsers keep its bytes and write them back;
                a closed (proto2) enum's undefined number is kept as an unknown field by C++,
                Java and Python, but as the value by C#, Ruby and Go
Malformed       wire type 6 or 7, field 0, a varint over 10 bytes, a length past the end:
                parsers reject the whole message         hex --explain --notes shows where
";

pub fn run(_args: &GuideArgs, out: &mut impl Write) -> Result<Status> {
    out.write_all(CARD.as_bytes())?;
    Ok(Status::Clean)
}
