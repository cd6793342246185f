//! A client's value quoted in a message, short whatever the value's length.
//!
//! Refusals travel back in the `grpc-message` header, and clients reject oversized metadata
//! (8 KiB by default in gRPC's C core): a message echoing a 64 KiB claim never reaches the
//! client that sent it. So messages show a value's first characters and its size, enough to
//! recognise it.

use std::fmt::{self, Write};

/// Characters of a value shown before it is cut.
const SHOWN: usize = 40;

/// `value` in double quotes, escaped as in JSON, cut after 40 characters:
/// `"e2"`, or `"xxxxxxxx…" (65536 bytes)`.
pub fn quote(value: &str) -> Quoted<'_> {
    Quoted(value)
}

/// A value as [`quote`] shows it.
#[derive(Clone, Copy, Debug)]
pub struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cut = self.0.char_indices().nth(SHOWN).map(|(at, _)| at);
        f.write_char('"')?;
        for c in self.0[..cut.unwrap_or(self.0.len())].chars() {
            match c {
                '"' | '\\' => write!(f, "\\{c}")?,
                c if c.is_control() => write!(f, "\\u{:04x}", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        match cut {
            Some(_) => write!(f, "…\" ({} bytes)", self.0.len()),
            None => f.write_char('"'),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_are_quoted_whole() {
        assert_eq!(quote("j4").to_string(), r#""j4""#);
        assert_eq!(quote("").to_string(), r#""""#);
        assert_eq!(quote(&"x".repeat(40)).to_string().len(), 42);
    }

    #[test]
    fn long_values_are_cut_on_a_char_boundary_with_their_size() {
        let long = "x".repeat(64 * 1024);
        assert_eq!(
            quote(&long).to_string(),
            format!("\"{}…\" (65536 bytes)", "x".repeat(40))
        );
        let chinese = "车".repeat(41);
        assert_eq!(
            quote(&chinese).to_string(),
            format!("\"{}…\" (123 bytes)", "车".repeat(40))
        );
    }

    #[test]
    fn quotes_and_control_characters_are_escaped() {
        assert_eq!(quote("a\"b\\c\nd").to_string(), r#""a\"b\\c\u000ad""#);
    }
}
