//! PDN, the Portable Draughts Notation of game files: tag pairs (`[White "Sijbrands"]`,
//! `[FEN "W:W31-50:B1-20"]`), then move text in the notation of draughts 10 — `32-28` for a
//! move, `28x19` for a capture, `28x19x10` with every landing square when the start and end
//! alone do not say which pieces were taken — and a result.
//!
//! Reading is lenient where real files differ (checked against the FMJD PDN standard's test
//! set): move numbers with or without leading zeros (`01.`), black's move numbers (`6...`,
//! `1. ...`),
//! squares written with a space after the separator (`1- 6`, Dutch typesetting), `:` as a
//! capture separator, comments `{...}` and `;` to the end of the line, variations `(...)`
//! (skipped, nested), `$N` annotations and `!`/`?` marks, and results in the point forms
//! `2-0 1-1 0-2`, the chess forms `1-0 1/2-1/2 0-1`, `*`, and match-point scores such as `4-6`.

use std::fmt;

use super::fen::FenError;
use super::movegen::generate;
use super::moves::Move;
use super::piece::Color;
use super::position::Position;
use super::square::Square;
use crate::games::pgn_text::{self, Game, Notation, TextError, Word};

/// One game of a PDN file, as written: its tags, its move text and its result (`2-0`,
/// `1/2-1/2`, `4-6`, `*`).
pub type PdnGame = Game<PdnMove>;

/// A move as written: the squares named (start, any landing squares, end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnMove {
    pub squares: Vec<Square>,
    /// Written with `x` (or `:`): a capture.
    pub capture: bool,
    /// The file line it is on.
    pub line: usize,
}

/// Who won a game, as a PDN result says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    BlackWins,
    Draw,
}

/// Why a PDN text or move could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PdnError {
    /// A `{` comment or `(` variation is never closed.
    Unclosed { line: usize, what: char },
    /// A `)` without its `(`.
    StrayParen { line: usize },
    /// A tag line that is not `[Name "value"]`.
    BadTag { line: usize, text: String },
    /// A token in the move text that is neither a move, a move number nor a result.
    BadToken { line: usize, token: String },
    /// The `FEN` tag is not a valid position.
    BadFen { fen: String, error: FenError },
    /// No legal move fits the squares written.
    NoSuchMove { line: usize, text: String },
    /// Legal moves taking different pieces fit the squares written.
    Ambiguous {
        line: usize,
        text: String,
        fits: Vec<String>,
    },
}

impl fmt::Display for PdnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PdnError::Unclosed { line, what } => write!(f, "line {line}: \"{what}\" never closed"),
            PdnError::StrayParen { line } => write!(f, "line {line}: \")\" without \"(\""),
            PdnError::BadTag { line, text } => write!(f, "line {line}: bad tag {text:?}"),
            PdnError::BadToken { line, token } => {
                write!(
                    f,
                    "line {line}: {token:?} is not a move, move number or result"
                )
            }
            PdnError::BadFen { fen, error } => write!(f, "FEN tag {fen:?}: {error}"),
            PdnError::NoSuchMove { line, text } => {
                write!(f, "line {line}: no legal move fits {text}")
            }
            PdnError::Ambiguous { line, text, fits } => write!(
                f,
                "line {line}: {text} fits several legal moves: {}",
                fits.join(", ")
            ),
        }
    }
}

impl std::error::Error for PdnError {}

impl From<TextError> for PdnError {
    fn from(e: TextError) -> PdnError {
        match e {
            TextError::Unclosed { line, what } => PdnError::Unclosed { line, what },
            TextError::StrayParen { line } => PdnError::StrayParen { line },
            TextError::BadTag { line, text } => PdnError::BadTag { line, text },
        }
    }
}

impl fmt::Display for PdnMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.capture { "x" } else { "-" };
        let names: Vec<String> = self.squares.iter().map(Square::to_string).collect();
        f.write_str(&names.join(sep))
    }
}

impl PdnGame {
    /// The start position: the `FEN` tag's, or the standard start.
    pub fn start(&self) -> Result<Position, PdnError> {
        match self.tag("FEN") {
            None => Ok(Position::startpos()),
            Some(fen) => Position::from_fen(fen).map_err(|error| PdnError::BadFen {
                fen: fen.to_string(),
                error,
            }),
        }
    }

    /// The outcome: the `Result` tag's, else the result token of the move text's. The tag
    /// wins where they differ (two games of the FMJD test set end their move text with a
    /// result other than their tag's; see [`PdnGame::result_conflict`]).
    pub fn outcome(&self) -> Option<Outcome> {
        self.tag("Result")
            .and_then(outcome)
            .or_else(|| self.result.as_deref().and_then(outcome))
    }

    /// The `Result` tag and the move text's result, when both give an outcome and they
    /// differ (a tag of `*` says nothing, and the move text's result then stands).
    pub fn result_conflict(&self) -> Option<(&str, &str)> {
        let (tag, text) = (self.tag("Result")?, self.result.as_deref()?);
        let (a, b) = (outcome(tag)?, outcome(text)?);
        (a != b).then_some((tag, text))
    }

    /// The moves resolved to legal moves from the start, one after another.
    pub fn legal_moves(&self) -> Result<Vec<Move>, PdnError> {
        let mut pos = self.start()?;
        let mut out = Vec::with_capacity(self.moves.len());
        for written in &self.moves {
            let mv = pos.find_pdn(written)?;
            pos.play(&mv);
            out.push(mv);
        }
        Ok(out)
    }
}

/// What a result token says: `2-0`/`1-0` white wins, `0-2`/`0-1` black wins, `1-1`/`1/2-1/2`
/// a draw; a match-point score (`4-6`, `1-9`) goes to the side with more points; `*`, `0-0`
/// (both lost) and anything else say nothing.
pub fn outcome(result: &str) -> Option<Outcome> {
    if result == "1/2-1/2" {
        return Some(Outcome::Draw);
    }
    let (white, black) = result.split_once('-')?;
    let (white, black): (u32, u32) = (white.parse().ok()?, black.parse().ok()?);
    if white == 0 && black == 0 {
        // Both lost (a double forfeit): no result a game's end can give.
        return None;
    }
    Some(match white.cmp(&black) {
        std::cmp::Ordering::Greater => Outcome::WhiteWins,
        std::cmp::Ordering::Less => Outcome::BlackWins,
        std::cmp::Ordering::Equal => Outcome::Draw,
    })
}

impl Position {
    /// The one legal move a written move means: same start and end, and the written landing
    /// squares (if any) visited in that order. Routes that take the same pieces are one move
    /// (draughts 6.14).
    pub fn find_pdn(&self, written: &PdnMove) -> Result<Move, PdnError> {
        let mut fits: Vec<Move> = Vec::new();
        // Every route, not one per captured set: the written landing squares pick the route.
        for mv in generate::<Move>(self, false) {
            if fits_written(&mv, &written.squares)
                && !fits.iter().any(|f| f.captured_set() == mv.captured_set())
            {
                fits.push(mv);
            }
        }
        match fits.len() {
            1 => Ok(fits.remove(0)),
            0 => Err(PdnError::NoSuchMove {
                line: written.line,
                text: written.to_string(),
            }),
            _ => Err(PdnError::Ambiguous {
                line: written.line,
                text: written.to_string(),
                fits: fits.iter().map(Move::pdn_full).collect(),
            }),
        }
    }

    /// The shortest PDN text of a move from this position (draughts 10): start and end, or
    /// every landing square when another legal move between the same squares takes other
    /// pieces (or when the move is not a legal one here).
    pub fn pdn_text(&self, mv: &Move) -> String {
        let legal = self.legal_moves();
        let ours = mv.captured_set();
        let same_ends = |m: &&Move| m.from() == mv.from() && m.to() == mv.to();
        let is_legal = legal
            .iter()
            .filter(same_ends)
            .any(|m| m.captured_set() == ours);
        let others = legal
            .iter()
            .filter(same_ends)
            .any(|m| m.captured_set() != ours);
        if is_legal && !others {
            mv.pdn()
        } else {
            mv.pdn_full()
        }
    }
}

/// Whether the written squares are the move's start, end, and a subsequence of its landings.
fn fits_written(mv: &Move, written: &[Square]) -> bool {
    let (Some(first), Some(last)) = (written.first(), written.last()) else {
        return false;
    };
    if mv.from() != *first || mv.to() != *last {
        return false;
    }
    let mut path = mv.path[1..mv.path.len() - 1].iter();
    written[1..written.len() - 1]
        .iter()
        .all(|sq| path.any(|p| p == sq))
}

/// Reads every game of a PDN file. A game with neither moves nor a result (a tag section
/// left empty) is left out.
pub fn parse_pdn(text: &str) -> Result<Vec<PdnGame>, PdnError> {
    pgn_text::parse(text, Pdn::default())
}

/// Draughts 10's move text, read word by word.
#[derive(Default)]
struct Pdn {
    /// A move written with a space after its separator (`1- 6`): the part read so far.
    split: Option<String>,
}

impl Notation for Pdn {
    type Move = PdnMove;
    type Error = PdnError;

    fn word(&mut self, game: &PdnGame, line: usize, text: &str) -> Result<Word<PdnMove>, PdnError> {
        let joined;
        let text = match self.split.take() {
            Some(head) => {
                joined = head + text;
                joined.as_str()
            }
            None => text,
        };
        if text.ends_with(['-', 'x', ':']) && text[..text.len() - 1].parse::<u8>().is_ok() {
            self.split = Some(text.to_string());
            return Ok(Word::Skip);
        }
        // `1. ... 7-12` writes black's first move with the dots apart from the number.
        if pgn_text::is_filler(text) {
            return Ok(Word::Skip);
        }
        let text = text.trim_end_matches(['!', '?']);
        // A result ends the move text; `1-0` and the like cannot be moves (there is no
        // square 0), and a match score such as `4-6` is read as a result only when it is
        // the game's Result tag.
        if text == "*" || is_result(text) || game.tag("Result") == Some(text) {
            return Ok(Word::Result(text.to_string()));
        }
        read_move(line, text)
            .map(Word::Move)
            .ok_or_else(|| PdnError::BadToken {
                line,
                token: text.to_string(),
            })
    }
}

/// The fixed result forms; `1-1` is a draw in points, never a move (same square).
fn is_result(text: &str) -> bool {
    matches!(
        text,
        "2-0" | "0-2" | "1-1" | "1-0" | "0-1" | "0-0" | "1/2-1/2"
    )
}

/// `32-28`, `28x19`, `28x19x10`, `28:19`: squares joined by one kind of separator.
fn read_move(line: usize, text: &str) -> Option<PdnMove> {
    let capture = text.contains(['x', ':']);
    let squares: Option<Vec<Square>> = text
        .split(['-', 'x', ':'])
        .map(|n| n.parse::<u64>().ok().and_then(Square::new))
        .collect();
    let squares = squares?;
    (squares.len() >= 2 && (capture || squares.len() == 2)).then_some(PdnMove {
        squares,
        capture,
        line,
    })
}

/// Writes a game as PDN: the tags, then numbered move text wrapped near 80 columns, then
/// the result. `first` is the side that makes the first move; `moves` are already written.
pub fn write_pdn(
    tags: &[(String, String)],
    first: Color,
    moves: &[String],
    result: &str,
) -> String {
    crate::games::pgn_text::write(tags, first == Color::Black, moves, result)
}

/// The PDN result of an outcome, in the points of draughts 12.6 (win 2, draw 1, loss 0).
pub fn result_text(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        Some(Outcome::WhiteWins) => "2-0",
        Some(Outcome::BlackWins) => "0-2",
        Some(Outcome::Draw) => "1-1",
        None => "*",
    }
}
