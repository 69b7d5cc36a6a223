//! Small helpers for output read by people.

/// `1 byte`, `2 bytes`, `0 frames`.
pub fn plural(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn plurals() {
        assert_eq!(super::plural(1u64, "byte"), "1 byte");
        assert_eq!(super::plural(0u64, "frame"), "0 frames");
        assert_eq!(super::plural(784u64, "byte"), "784 bytes");
    }
}
