//! Xiangqi game records in PGN, as federations and databases exchange them: tag pairs
//! (`[Game "Chinese Chess"]`, `[Red "..."]`, `[FEN "..."]`), then move text with move
//! numbers, comments `{...}` and `;` to the end of the line, variations `(...)` (skipped,
//! nested), `$N` annotations, and a result (`1-0`, `0-1`, `1/2-1/2`, `*`). Moves are read
//! in ICCS, WXF or Chinese notation (see `written.rs`), each against the position it is
//! played in. The text is already decoded: choosing between UTF-8, Big5 and GBK is the
//! caller's business.

use std::fmt;

use super::fen::FenError;
use super::moves::Move;
use super::piece::Color;
use super::position::Position;
use super::written::{Unread, is_move_text};
use crate::games::pgn_text::{self, Game, Notation, TextError, Word};

/// One game of a PGN file, as written: its tags, its moves and the result ending its move
/// text.
pub type PgnGame = Game<PgnMove>;

/// A move as written and the file line it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    pub text: String,
    pub line: usize,
}

/// Who won, as a PGN result says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    RedWins,
    BlackWins,
    Draw,
}

/// Why a PGN text or one of its moves could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgnError {
    /// A `{` comment or `(` variation is never closed.
    Unclosed { line: usize, what: char },
    /// A `)` without its `(`.
    StrayParen { line: usize },
    /// A tag line that is not `[Name "value"]`.
    BadTag { line: usize, text: String },
    /// A token of the move text that is neither a move, a move number nor a result.
    BadToken { line: usize, token: String },
    /// The `FEN` tag is not a valid position.
    BadFen {
        line: usize,
        fen: String,
        error: FenError,
    },
    /// The move written as `text`, move `number` of `color`, names no legal move.
    BadMove {
        line: usize,
        text: String,
        number: u32,
        color: Color,
        why: Unread,
    },
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgnError::Unclosed { line, what } => write!(f, "line {line}: \"{what}\" never closed"),
            PgnError::StrayParen { line } => write!(f, "line {line}: \")\" without \"(\""),
            PgnError::BadTag { line, text } => write!(f, "line {line}: bad tag {text:?}"),
            PgnError::BadToken { line, token } => {
                write!(
                    f,
                    "line {line}: {token:?} is not a move, move number or result"
                )
            }
            PgnError::BadFen { line, fen, error } => {
                write!(f, "line {line}: FEN tag {fen:?}: {error}")
            }
            PgnError::BadMove {
                line,
                text,
                number,
                color,
                why,
            } => write!(f, "line {line}: move {number} of {color}, {text:?}: {why}"),
        }
    }
}

impl std::error::Error for PgnError {}

impl From<TextError> for PgnError {
    fn from(e: TextError) -> PgnError {
        match e {
            TextError::Unclosed { line, what } => PgnError::Unclosed { line, what },
            TextError::StrayParen { line } => PgnError::StrayParen { line },
            TextError::BadTag { line, text } => PgnError::BadTag { line, text },
        }
    }
}

impl PgnGame {
    /// The start position: the `FEN` tag's, or the standard start.
    pub fn start(&self) -> Result<Position, PgnError> {
        match self.tag("FEN").filter(|f| !f.trim().is_empty()) {
            None => Ok(Position::startpos()),
            Some(fen) => Position::from_fen(fen).map_err(|error| PgnError::BadFen {
                line: self.line,
                fen: fen.to_string(),
                error,
            }),
        }
    }

    /// The outcome: the `Result` tag's, else the move text's result.
    pub fn outcome(&self) -> Option<Outcome> {
        self.tag("Result")
            .and_then(outcome)
            .or_else(|| self.result.as_deref().and_then(outcome))
    }

    /// The moves read one after another from the start, each against its position.
    pub fn legal_moves(&self) -> Result<Vec<Move>, PgnError> {
        let mut pos = self.start()?;
        let mut out = Vec::with_capacity(self.moves.len());
        for written in &self.moves {
            let mv = pos
                .read_move(&written.text)
                .map_err(|why| PgnError::BadMove {
                    line: written.line,
                    text: written.text.clone(),
                    number: pos.fullmove_number(),
                    color: pos.side_to_move(),
                    why,
                })?;
            pos.play(mv);
            out.push(mv);
        }
        Ok(out)
    }
}

/// What a result token says: `1-0` red wins, `0-1` black wins, `1/2-1/2` (or `½-½`) a draw;
/// `*` and anything else say nothing.
pub fn outcome(result: &str) -> Option<Outcome> {
    match result.trim() {
        "1-0" => Some(Outcome::RedWins),
        "0-1" => Some(Outcome::BlackWins),
        "1/2-1/2" | "½-½" => Some(Outcome::Draw),
        _ => None,
    }
}

/// Reads every game of a PGN file. A game with neither moves nor a result (a tag section
/// left empty) is left out.
pub fn parse_pgn(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    pgn_text::parse(text, Pgn)
}

/// Xiangqi's move text, read word by word: moves in ICCS, WXF or Chinese notation.
struct Pgn;

impl Notation for Pgn {
    type Move = PgnMove;
    type Error = PgnError;

    fn word(&mut self, _: &PgnGame, line: usize, text: &str) -> Result<Word<PgnMove>, PgnError> {
        if pgn_text::is_filler(text) {
            return Ok(Word::Skip);
        }
        if text == "*" || outcome(text).is_some() {
            return Ok(Word::Result(text.to_string()));
        }
        let bare = text.trim_end_matches(['!', '?']);
        // `1.炮二平五`: a move number written against its move. WXF's tandem soldiers
        // (`33.4`) also open with digits and a dot, so a whole move is tried first.
        let written = [bare, without_number(bare)]
            .into_iter()
            .find(|t| is_move_text(t))
            .ok_or_else(|| PgnError::BadToken {
                line,
                token: text.to_string(),
            })?;
        Ok(Word::Move(PgnMove {
            text: written.to_string(),
            line,
        }))
    }
}

/// `12.炮二平五` without its `12.`.
fn without_number(text: &str) -> &str {
    let rest = text.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() < text.len() && rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = "[Game \"Chinese Chess\"]\n\
        [Red \"Hu Ronghua\"]\n\
        [Black \"\"]\n\
        [Result \"1-0\"]\n\
        \n\
        1. 炮二平五 {the central cannon} 馬８進７ (1... 炮8平5 2. 马二进三) \n\
        2. H2+3 r9=8 ; WXF, either case\n\
        3.i0i1 $1 3... b9c7!? 4. R1.2\n\
        1-0\n\
        [Game \"Chinese Chess\"]\n\
        1. c3-c4 *\n";

    fn iccs(moves: &[Move]) -> Vec<String> {
        moves.iter().map(Move::to_string).collect()
    }

    #[test]
    fn tags_moves_comments_variations_results() {
        let games = parse_pgn(GAME).unwrap();
        assert_eq!(games.len(), 2);
        let g = &games[0];
        assert_eq!(g.tag("red"), Some("Hu Ronghua"));
        assert_eq!(g.tag("Black"), Some(""));
        assert_eq!(g.outcome(), Some(Outcome::RedWins));
        assert_eq!(g.moves.len(), 7);
        assert_eq!(g.moves[2].line, 7);
        assert_eq!(
            iccs(&g.legal_moves().unwrap()),
            ["h2e2", "h9g7", "h0g2", "i9h9", "i0i1", "b9c7", "i1h1"]
        );
        assert_eq!(games[1].line, 10);
        assert_eq!(games[1].result.as_deref(), Some("*"));
        assert_eq!(games[1].outcome(), None);
        assert_eq!(iccs(&games[1].legal_moves().unwrap()), ["c3c4"]);
    }

    #[test]
    fn the_fen_tag_sets_the_start() {
        let text =
            "[FEN \"3k5/9/9/9/9/9/4C4/9/4C4/5K3 b - - 0 1\"]\n1... 将4进1 2. 後炮平九 1/2-1/2";
        let games = parse_pgn(text).unwrap();
        assert_eq!(games[0].outcome(), Some(Outcome::Draw));
        assert_eq!(iccs(&games[0].legal_moves().unwrap()), ["d9d8", "e1a1"]);
        let bad = parse_pgn("[FEN \"3k5/9 w\"]\n1. c3c4 *").unwrap();
        assert!(matches!(
            bad[0].start(),
            Err(PgnError::BadFen { line: 1, .. })
        ));
    }

    #[test]
    fn errors_name_the_line_and_the_move() {
        let games =
            parse_pgn("[Game \"Chinese Chess\"]\n\n1. 炮二平五 炮8平5\n2. 马二进四 *").unwrap();
        let err = games[0].legal_moves().unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 4: move 2 of red, \"马二进四\": illegal: horse h0 to f1 is blocked at g0"
        );
        let token = parse_pgn("1. c3c4 xyz *").unwrap_err();
        assert_eq!(
            token.to_string(),
            "line 1: \"xyz\" is not a move, move number or result"
        );
        assert_eq!(
            parse_pgn("1. c3c4 {open").unwrap_err(),
            PgnError::Unclosed { line: 1, what: '{' }
        );
        assert_eq!(
            parse_pgn("1. c3c4 )").unwrap_err(),
            PgnError::StrayParen { line: 1 }
        );
        assert!(matches!(
            parse_pgn("[Red Hu]").unwrap_err(),
            PgnError::BadTag { line: 1, .. }
        ));
    }
}
