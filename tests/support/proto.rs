//! The protobuf wire encoding the tests build their own inputs with: one encoder for every test
//! binary, so a hostile or oversized message is written the same way wherever a test needs one.

/// Appends `n` as a base-128 varint.
pub fn varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A length-delimited field of any length: the key of field number `field` (wire type 2), the
/// varint length, `body`.
pub fn ld(field: u64, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    ld_into(field, body, &mut out);
    out
}

/// [`ld`], appended to `out`.
pub fn ld_into(field: u64, body: &[u8], out: &mut Vec<u8>) {
    varint((field << 3) | 2, out);
    varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// A length-delimited field whose key is given as its one byte `tag` (`0x0a` is field 1 of wire
/// type 2): `tag`, the varint length, `body`.
pub fn tagged(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    varint(body.len() as u64, &mut out);
    out.extend_from_slice(body);
    out
}

/// A varint field: the key of field number `field` (wire type 0), then `value`.
pub fn vi(field: u64, value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    varint(field << 3, &mut out);
    varint(value, &mut out);
    out
}
