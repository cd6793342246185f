//! The text that PGN (xiangqi, chess) and PDN (draughts) game files share: games made of tag
//! pairs (`[Name "value"]`, `\"` and `\\` escaped) and move text, with comments `{...}` and
//! `;` to the end of the line, variations `(...)` (skipped, nested), and a result closing each
//! game. What a word of move text is — a move in which notation, a move number, a result — is
//! each game's own [`Notation`].

use std::mem;

/// One game of a file, as written: its tags, the moves of its main line and its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game<M> {
    /// Tag pairs in file order, values unescaped.
    pub tags: Vec<(String, String)>,
    /// The moves of the main line, in order, as the notation read them.
    pub moves: Vec<M>,
    /// The result token ending the move text, if any.
    pub result: Option<String>,
    /// The file line the game starts on.
    pub line: usize,
}

impl<M> Game<M> {
    /// The value of a tag (names compared without case), if the game has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What is wrong with a file's text before any word of it is read as a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextError {
    /// A `{` comment or `(` variation is never closed.
    Unclosed { line: usize, what: char },
    /// A `)` without its `(`.
    StrayParen { line: usize },
    /// A tag line that is not `[Name "value"]`.
    BadTag { line: usize, text: String },
}

/// What one word of the main line's move text is.
pub enum Word<M> {
    /// Nothing to keep: a move number, an annotation, or part of a word still being read.
    Skip,
    /// A result, as the game records it: the move text ends here.
    Result(String),
    /// A move.
    Move(M),
}

/// How a game's files write their moves.
pub trait Notation {
    type Move;
    type Error: From<TextError>;

    /// Reads `text`, one whitespace-delimited word of `game`'s main line on file line `line`
    /// (comments, variations and tags are already taken out).
    fn word(
        &mut self,
        game: &Game<Self::Move>,
        line: usize,
        text: &str,
    ) -> Result<Word<Self::Move>, Self::Error>;
}

/// Reads every game of `text` with `notation`. A game with neither moves nor a result (a tag
/// section left empty) is left out. A byte order mark at the start of a line is ignored.
pub fn parse<N: Notation>(text: &str, notation: N) -> Result<Vec<Game<N::Move>>, N::Error> {
    let mut reader = Reader {
        notation,
        games: Vec::new(),
        current: None,
        comment: None,
        variations: Vec::new(),
    };
    for (index, raw) in text.lines().enumerate() {
        reader.line(index + 1, raw.trim_start_matches('\u{feff}'))?;
    }
    reader.finish()
}

/// `12.`, `01.`, `6...`: a move number.
/// Writes a game in the PGN family (xiangqi PGN, draughts PDN): the tags, then the moves
/// (already written, comments included) numbered `1. a b 2. ...` (`1... b` when the second
/// side moves first) and wrapped near 80 columns, then the result.
pub fn write(
    tags: &[(String, String)],
    second_first: bool,
    moves: &[String],
    result: &str,
) -> String {
    let mut out = String::new();
    for (name, value) in tags {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{name} \"{value}\"]\n"));
    }
    out.push('\n');
    let offset = usize::from(second_first);
    let mut words = Vec::with_capacity(moves.len() * 3 / 2 + 2);
    for (i, mv) in moves.iter().enumerate() {
        let ply = i + offset;
        if ply % 2 == 0 {
            words.push(format!("{}.", ply / 2 + 1));
        } else if i == 0 {
            words.push(format!("{}...", ply / 2 + 1));
        }
        words.push(mv.clone());
    }
    words.push(result.to_string());
    // Words joined by spaces into lines of at most 79 columns (a longer word its own line).
    let mut width = 0;
    for word in &words {
        if width > 0 && width + 1 + word.len() > 79 {
            out.push('\n');
            width = 0;
        } else if width > 0 {
            out.push(' ');
            width += 1;
        }
        width += word.len();
        out.push_str(word);
    }
    out.push('\n');
    out
}

/// A move's clock as PGN writes it after the move: `{[%clk 1:29:59]}`.
pub fn clock_comment(ms: u64) -> String {
    let s = ms / 1000;
    format!("{{[%clk {}:{:02}:{:02}]}}", s / 3600, s / 60 % 60, s % 60)
}

pub fn is_move_number(text: &str) -> bool {
    let digits = text.trim_end_matches('.');
    digits.len() < text.len() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A word that says nothing in any notation: a move number, `...` alone, or a `$N`
/// annotation.
pub fn is_filler(text: &str) -> bool {
    is_move_number(text) || text.starts_with('$') || text.bytes().all(|b| b == b'.')
}

/// A tag value as written between quotes: `\"` is a quote and `\\` a backslash (PGN 8.1.1).
fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// The state of reading a file line by line.
struct Reader<N: Notation> {
    notation: N,
    games: Vec<Game<N::Move>>,
    current: Option<Game<N::Move>>,
    /// Inside a `{` comment: the line it opened on.
    comment: Option<usize>,
    /// Open `(` variations: the line of each.
    variations: Vec<usize>,
}

impl<N: Notation> Reader<N> {
    fn game(&mut self, line: usize) -> &mut Game<N::Move> {
        self.current.get_or_insert_with(|| Game {
            tags: Vec::new(),
            moves: Vec::new(),
            result: None,
            line,
        })
    }

    fn line(&mut self, line: usize, raw: &str) -> Result<(), N::Error> {
        let trimmed = raw.trim();
        if self.comment.is_none() && self.variations.is_empty() && trimmed.starts_with('[') {
            return self.tag(line, trimmed);
        }
        let mut token = String::new();
        for c in raw.chars() {
            if self.comment.is_some() {
                if c == '}' {
                    self.comment = None;
                }
                continue;
            }
            match c {
                '{' => {
                    self.token(line, &mut token)?;
                    self.comment = Some(line);
                }
                ';' => break,
                '(' => {
                    self.token(line, &mut token)?;
                    self.variations.push(line);
                }
                ')' => {
                    self.token(line, &mut token)?;
                    self.variations
                        .pop()
                        .ok_or(TextError::StrayParen { line })?;
                }
                c if c.is_whitespace() => self.token(line, &mut token)?,
                c => token.push(c),
            }
        }
        self.token(line, &mut token)
    }

    /// A tag line: after move text it starts the next game.
    fn tag(&mut self, line: usize, text: &str) -> Result<(), N::Error> {
        let bad = || TextError::BadTag {
            line,
            text: text.to_string(),
        };
        let inner = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .ok_or_else(bad)?;
        let (name, value) = inner
            .trim()
            .split_once(char::is_whitespace)
            .ok_or_else(bad)?;
        let value = value
            .trim()
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .ok_or_else(bad)?;
        if self
            .current
            .as_ref()
            .is_some_and(|g| !g.moves.is_empty() || g.result.is_some())
        {
            self.end_game();
        }
        self.game(line)
            .tags
            .push((name.to_string(), unescape(value)));
        Ok(())
    }

    /// One whitespace-delimited token of move text (possibly empty), outside comments; the
    /// words of variations are passed over.
    fn token(&mut self, line: usize, token: &mut String) -> Result<(), N::Error> {
        let text = mem::take(token);
        if text.is_empty() || !self.variations.is_empty() {
            return Ok(());
        }
        self.game(line);
        let game = self.current.as_ref().expect("just made");
        match self.notation.word(game, line, &text)? {
            Word::Skip => {}
            Word::Result(result) => {
                self.game(line).result = Some(result);
                self.end_game();
            }
            Word::Move(mv) => self.game(line).moves.push(mv),
        }
        Ok(())
    }

    fn end_game(&mut self) {
        if let Some(game) = self.current.take()
            && (!game.moves.is_empty() || game.result.is_some())
        {
            self.games.push(game);
        }
    }

    fn finish(mut self) -> Result<Vec<Game<N::Move>>, N::Error> {
        if let Some(line) = self.comment {
            return Err(TextError::Unclosed { line, what: '{' }.into());
        }
        if let Some(&line) = self.variations.last() {
            return Err(TextError::Unclosed { line, what: '(' }.into());
        }
        self.end_game();
        Ok(self.games)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A notation of numbers: a word of digits is a move, `R` a result.
    struct Digits;

    impl Notation for Digits {
        type Move = u32;
        type Error = TextError;

        fn word(&mut self, _: &Game<u32>, line: usize, text: &str) -> Result<Word<u32>, TextError> {
            if is_filler(text) {
                return Ok(Word::Skip);
            }
            if text == "R" {
                return Ok(Word::Result(text.into()));
            }
            text.parse().map(Word::Move).map_err(|_| TextError::BadTag {
                line,
                text: text.into(),
            })
        }
    }

    #[test]
    fn games_tags_comments_and_variations() {
        let text = "\u{feff}[Event \"a \\\"b\\\" c\\\\d\"]\n1. 7 {x (} 8 (9 (10) 11) ; 12\n13 R\n\
                    [Event \"two\"]\n[Round \"1\"]\n\n1... 14 $3\n[Event \"empty\"]\n";
        let games = parse(text, Digits).expect("read");
        assert_eq!(games.len(), 2, "the empty tag section is left out");
        assert_eq!(games[0].tag("event"), Some("a \"b\" c\\d"));
        assert_eq!(games[0].moves, [7, 8, 13]);
        assert_eq!(games[0].result.as_deref(), Some("R"));
        assert_eq!((games[1].line, games[1].moves.as_slice()), (4, &[14][..]));
        assert_eq!(games[1].tag("Round"), Some("1"));
    }

    #[test]
    fn unclosed_and_stray_marks_name_their_line() {
        let err = |text| parse(text, Digits).expect_err("refused");
        assert_eq!(
            err("1 2\n{ 3\n4"),
            TextError::Unclosed { line: 2, what: '{' }
        );
        assert_eq!(
            err("1 (2\n(3)\n"),
            TextError::Unclosed { line: 1, what: '(' }
        );
        assert_eq!(err("1\n2)\n"), TextError::StrayParen { line: 2 });
        assert_eq!(
            err("[Event]\n1"),
            TextError::BadTag {
                line: 1,
                text: "[Event]".into()
            }
        );
    }
}
