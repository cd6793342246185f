//! A log file's text: bytes read whole, then checked as UTF-8 so that a bad byte is reported
//! at its line, as every other fault of a log is (`line 17: ...`).

use std::path::Path;

use thiserror::Error;

/// Why a file's text could not be had.
#[derive(Debug, Error)]
pub enum TextError {
    /// The file could not be read at all.
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// A byte sequence is not UTF-8; `line` counts from 1, `column` is the byte in the line
    /// (from 1) and `offset` the byte in the file (from 0).
    #[error(
        "{path}: line {line}: not valid UTF-8 at byte {column} of the line (byte offset \
         {offset} in the file)"
    )]
    NotUtf8 {
        path: String,
        line: usize,
        column: usize,
        offset: usize,
    },
}

/// The text of the file at `path`, or the line of its first byte that is not UTF-8.
pub fn read_text(path: &Path) -> Result<String, TextError> {
    let name = || path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| TextError::Io {
        path: name(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..offset];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        TextError::NotUtf8 {
            path: name(),
            line: before.iter().filter(|&&b| b == b'\n').count() + 1,
            column: offset - line_start + 1,
            offset,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_byte_is_reported_at_its_line_and_column() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n\xe8\xbd\xa6 ok\n\"x\xff\"\n").expect("write");
        let error = read_text(&path).unwrap_err();
        assert!(
            matches!(
                error,
                TextError::NotUtf8 {
                    line: 3,
                    column: 3,
                    offset: 17,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(
            error.to_string().ends_with(
                "line 3: not valid UTF-8 at byte 3 of the line (byte offset 17 in the file)"
            ),
            "{error}"
        );
    }

    #[test]
    fn utf8_text_is_read_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, "车 e2\n").expect("write");
        assert_eq!(read_text(&path).expect("text"), "车 e2\n");
        let missing = read_text(&dir.path().join("none")).unwrap_err();
        assert!(missing.to_string().starts_with("cannot read "), "{missing}");
    }
}
