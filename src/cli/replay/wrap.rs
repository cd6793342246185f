//! Long ruling texts broken into lines a person can read beside the log: a cycle's
//! justification lists every move since the position's first occurrence, a thousand
//! characters on one line otherwise.

use unicode_width::UnicodeWidthStr;

/// Columns of the human-readable replay: wide enough for a clause of a ruling, narrow enough
/// to read beside the log in a terminal.
pub const WIDTH: usize = 100;

/// `text` in lines of at most `width` columns (a Chinese character takes two), the first
/// indented by `first` and the others by `rest` (a hanging indent). Lines break only at
/// spaces, and never before a `(`, so no word is split nor a move from its notation in
/// parentheses (`e9e8 (将5进1)`, `idle (闲)`); a clause of a list (up to a `;`) moves whole to
/// the next line when it fits there but not on this one. A word wider than a line stands
/// alone.
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let mut lines = Lines {
        done: Vec::new(),
        line: first.to_string(),
        empty: true,
        width,
        rest,
    };
    for clause in text.split_inclusive("; ") {
        lines.clause(clause);
    }
    lines.finish()
}

/// The words of `clause`, each with the parenthesised words that follow it: the units a line
/// may not break.
fn units(clause: &str) -> Vec<String> {
    let mut units: Vec<String> = Vec::new();
    for word in clause.split_whitespace() {
        match units.last_mut() {
            Some(unit) if word.starts_with('(') => {
                unit.push(' ');
                unit.push_str(word);
            }
            _ => units.push(word.to_string()),
        }
    }
    units
}

/// The lines being filled.
struct Lines<'r> {
    done: Vec<String>,
    /// The line being filled, its indent included.
    line: String,
    /// Whether the current line holds no word yet.
    empty: bool,
    width: usize,
    rest: &'r str,
}

impl Lines<'_> {
    fn clause(&mut self, clause: &str) {
        let words = units(clause);
        let columns =
            words.iter().map(|w| w.width()).sum::<usize>() + words.len().saturating_sub(1);
        let whole_on_next = self.rest.width() + columns <= self.width;
        if !self.empty && !self.fits(columns) && whole_on_next {
            self.break_line();
        }
        for word in words {
            self.word(word);
        }
    }

    fn word(&mut self, word: String) {
        if !self.empty && !self.fits(word.width()) {
            self.break_line();
        }
        if !self.empty {
            self.line.push(' ');
        }
        self.line.push_str(&word);
        self.empty = false;
    }

    /// Whether `columns` more fit on the current line after a space.
    fn fits(&self, columns: usize) -> bool {
        self.line.width() + usize::from(!self.empty) + columns <= self.width
    }

    fn break_line(&mut self) {
        let next = self.rest.to_string();
        self.done.push(std::mem::replace(&mut self.line, next));
        self.empty = true;
    }

    fn finish(mut self) -> Vec<String> {
        if !self.empty {
            self.done.push(self.line);
        }
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_stays_on_one_line() {
        assert_eq!(wrap("a b c", 20, "    ", "      "), ["    a b c"]);
    }

    #[test]
    fn long_text_hangs_under_its_first_line_and_splits_no_word() {
        let text = "after red's move b1b9 at event 1, black's general is in check from red's chariot on b9 and black has no legal move";
        let lines = wrap(text, 40, "    ", "      ");
        assert_eq!(
            lines,
            [
                "    after red's move b1b9 at event 1,",
                "      black's general is in check from",
                "      red's chariot on b9 and black has",
                "      no legal move",
            ]
        );
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(words, text.split_whitespace().collect::<Vec<_>>());
    }

    #[test]
    fn a_list_item_moves_whole_to_the_next_line() {
        let text = "moves: black e9e8 (将5进1) at event 2: idle (闲); red a9a8 (车九退一) at event 3: check (将); black e8e9 (将5退1) at event 4: idle (闲)";
        let lines = wrap(text, 50, "", "  ");
        assert_eq!(
            lines,
            [
                "moves: black e9e8 (将5进1) at event 2: idle (闲);",
                "  red a9a8 (车九退一) at event 3: check (将);",
                "  black e8e9 (将5退1) at event 4: idle (闲)",
            ]
        );
        // Chinese characters count two columns each.
        assert!(lines.iter().all(|l| l.width() <= 50), "{lines:#?}");
    }

    #[test]
    fn a_move_keeps_its_notation_in_parentheses() {
        let lines = wrap(
            "black e9e8 (将5进1) at event 10: idle (闲); red",
            24,
            "",
            "  ",
        );
        assert_eq!(
            lines,
            ["black e9e8 (将5进1) at", "  event 10: idle (闲);", "  red"]
        );
    }

    #[test]
    fn a_word_wider_than_the_line_stands_alone_unsplit() {
        let long = "x".repeat(30);
        let lines = wrap(&format!("a {long} b"), 20, "", "  ");
        assert_eq!(lines, ["a", format!("  {long}").as_str(), "  b"]);
    }
}
