//! Renju game records: what `referee import` makes of a renju record and what `referee export
//! --renju` writes of a stored renju game.
//!
//! A record is PGN-like text (extension `.renju`): tag pairs, then the move text with one
//! number per stone (the stones alternate colours, so black's are the odd ones), the opening's
//! steps as brace comments where they were made, and the result (`1-0` is black's win, renju
//! counting from black, who places first):
//!
//! ```text
//! [Event "World Championship 2027"]
//! [Black "Holder of black after the opening"]
//! [White "Holder of white after the opening"]
//! [Result "1-0"]
//! [Opening "soosorv-8"]
//! [Variant "renju"]
//!
//! 1. h8 2. h9 3. h10 {swap} 4. h6 {declare 2} {offer g7 j11} 5. j11 6. a1 7. i10 ... 1-0
//! ```
//!
//! - `{swap}`: the player holding the colour of the next stone takes the other colour;
//! - `{declare N}`: the player who placed the last stone declares N fifth-move offers;
//! - `{offer P1 P2 ...}`: black's alternative fifth stones, placed at once; the stone written
//!   after it (the fifth) is white's choice among them;
//! - any other comment is a remark and is passed over.
//!
//! `Black` and `White` (and every `Black...`/`White...` tag, such as `BlackTeam`) describe the
//! players by the colours they hold after the opening's swaps, the colours a result is
//! credited to; a log's header names them by the colours they began with, so after an odd
//! number of swaps the tags change places between record and log. `Opening` is the header's
//! opening rule (absent: `centre`), `Forbidden` its procedure for a forbidden stone (absent:
//! `claim`), `FEN` a position to start from; the other tags are the header's own.
//!
//! Renju programs' bare move lists are records too (RenLib's text export, renju.net game
//! pages, Gomocup and Piskvork): points apart by spaces or commas, numbered (`1. h8 2. i9`) or
//! not (`h8 i9 j10`), or run together (`h8i9j10k11`), upper or lower case.

use std::mem;

use thiserror::Error;

use crate::event::check::opening_fields;
use crate::event::{
    Event, EventKind, ForbiddenRule, GameResult, Header, OpeningRule, Side, Square,
};
use crate::games::Variant;
use crate::games::renju::{Board, Point, Stone};
use crate::games::xiangqi::is_move_text;
use crate::quote::quote;
use crate::referee::{Effect, Referee, RulingKind, SetupError, Step, replay};

use super::Imported;
use super::result::{add_result, plain};

/// Tags that the header, the stones or the format already say; the others go into the
/// header's `tags` on import and come back from them on export.
const RULE_TAGS: [&str; 7] = [
    "Result",
    "Variant",
    "Game",
    "Opening",
    "Forbidden",
    "FEN",
    "SetUp",
];

/// The results a record's move text may close with.
const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Why the arbiter declares a recorded draw that no offer could give (a record of no stones).
const DECLARED: &str = "the recorded result is a draw, with no stone for an offer to follow";

/// Columns a line of move text stays within.
const WIDTH: usize = 79;

/// A renju record as written: its tags, the steps of its move text, and the result that
/// closes the move text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenjuRecord {
    /// Tag pairs in file order, values unescaped.
    pub tags: Vec<Tag>,
    /// The stones and opening steps, in order.
    pub steps: Vec<Written>,
    /// The result token closing the move text (`1-0`, `0-1`, `1/2-1/2`, `*`) and its line.
    pub result: Option<(String, usize)>,
}

/// One tag pair of a record and the line it stands on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    pub name: String,
    pub value: String,
    pub line: usize,
}

/// One step of a record's move text and the line it was read on (a comment's: where it
/// opened).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub step: RecordStep,
    pub line: usize,
}

/// What a step of the move text is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordStep {
    /// A stone of the colour whose turn it is; right after offers, white's choice of one.
    Stone(Point),
    /// `{swap}`: the player holding the next stone's colour takes the other.
    Swap,
    /// `{declare N}`: the number of fifth-move offers, by the player of the last stone.
    Declare(u32),
    /// `{offer P1 P2 ...}`: black's alternative fifth stones.
    Offer(Vec<Point>),
}

/// Why a renju record cannot be read. Each names the line, and what on it is wrong.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RecordError {
    /// A word of the move text that is neither a point, a move number nor a result; `number`
    /// is the stone it would be, counted from the record's first.
    #[error(
        "line {line}: move {number} {} is not a renju point (a1..o15)",
        quote(token)
    )]
    NotAPoint {
        line: usize,
        number: usize,
        token: String,
    },
    /// A comment naming an opening step (`swap`, `declare`, `offer`) in words that do not fit.
    #[error("line {line}: {{{comment}}}: {why}")]
    BadStep {
        line: usize,
        comment: String,
        why: String,
    },
    /// A tag line that is not `[Name "value"]` pairs.
    #[error("line {line}: {} is not a tag pair [Name \"value\"]", quote(text))]
    BadTag { line: usize, text: String },
    /// A tag the header takes (`Opening`, `Forbidden`, `FEN`, `Result`) with a value it
    /// cannot take.
    #[error("line {line}: tag {name} {}: {why}", quote(value))]
    BadTagValue {
        line: usize,
        name: String,
        value: String,
        why: String,
    },
    /// A `{` comment never closed.
    #[error("line {line}: the comment opened here is never closed")]
    Unclosed { line: usize },
    /// A stone or step after the result: a record holds one game.
    #[error(
        "line {line}: {} after the result {result}: a renju record holds one game",
        quote(token)
    )]
    AfterResult {
        line: usize,
        token: String,
        result: String,
    },
    /// A tag after the move text began: a record holds one game.
    #[error("line {line}: a tag after the move text: a renju record holds one game")]
    TagAfterMoves { line: usize },
    /// Neither a stone nor a result (in the move text or a `Result` tag) anywhere.
    #[error("no stone and no result in the record")]
    Empty,
}

/// Reads a renju record (see the module's text), or a bare move list.
pub fn parse(text: &str) -> Result<RenjuRecord, RecordError> {
    let mut reader = Reader::default();
    for (index, raw) in text.lines().enumerate() {
        reader.line(index + 1, raw.trim_start_matches('\u{feff}'))?;
    }
    reader.finish()
}

/// Whether `text` reads as a renju record: a `Variant` or `Game` tag naming renju, or move
/// text whose first word is a renju point, or points run together, that is not also a
/// xiangqi move (`h2e2` is one in ICCS).
pub fn looks_like_renju(text: &str) -> bool {
    let named = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('['))
        .map(str::to_ascii_lowercase)
        .any(|l| l.contains("[variant \"renju") || l.contains("[game \"renju"));
    named || first_stone_word(text).is_some_and(|word| !is_move_text(&word))
}

/// The first word of `text`'s move text, if it is read as stones.
fn first_stone_word(text: &str) -> Option<String> {
    let mut reader = Reader::default();
    for (index, raw) in text.lines().enumerate() {
        let read = reader.line(index + 1, raw.trim_start_matches('\u{feff}'));
        if read.is_err() || reader.first_word.is_some() {
            break;
        }
    }
    reader.first_word
}

/// The state of reading a record line by line.
#[derive(Default)]
struct Reader {
    record: RenjuRecord,
    /// Inside a `{` comment: the line it opened on and its text so far.
    comment: Option<(usize, String)>,
    /// The word of move text being read.
    word: String,
    /// The first word read as stones (for telling a renju record from other records).
    first_word: Option<String>,
}

impl Reader {
    /// Reads file line `line`: tag pairs, or move text (with comments, which may run on over
    /// several lines).
    fn line(&mut self, line: usize, raw: &str) -> Result<(), RecordError> {
        if self.comment.is_none() && raw.trim_start().starts_with('[') {
            return self.tags(line, raw.trim());
        }
        for c in raw.chars() {
            if let Some((_, text)) = &mut self.comment {
                if c == '}' {
                    self.close_comment()?;
                } else {
                    text.push(c);
                }
                continue;
            }
            match c {
                '{' => {
                    self.flush(line)?;
                    self.comment = Some((line, String::new()));
                }
                ';' => break,
                c if c.is_whitespace() || c == ',' => self.flush(line)?,
                c => self.word.push(c),
            }
        }
        if let Some((_, text)) = &mut self.comment {
            text.push(' ');
        }
        self.flush(line)
    }

    /// A line of tag pairs, `[Name "value"]`, one or more.
    fn tags(&mut self, line: usize, text: &str) -> Result<(), RecordError> {
        if !self.record.steps.is_empty() || self.record.result.is_some() {
            return Err(RecordError::TagAfterMoves { line });
        }
        let bad = || RecordError::BadTag {
            line,
            text: text.to_string(),
        };
        let mut rest = text.trim_start();
        while let Some(inside) = rest.strip_prefix('[') {
            let (name, after) = inside
                .trim_start()
                .split_once(char::is_whitespace)
                .ok_or_else(bad)?;
            let after = after.trim_start().strip_prefix('"').ok_or_else(bad)?;
            let (value, after) = quoted(after).ok_or_else(bad)?;
            rest = after
                .trim_start()
                .strip_prefix(']')
                .ok_or_else(bad)?
                .trim_start();
            let (name, value) = (name.to_string(), value);
            self.record.tags.push(Tag { name, value, line });
        }
        if rest.is_empty() { Ok(()) } else { Err(bad()) }
    }

    /// A word of move text ends: a result, a move number, or one or more stones.
    fn flush(&mut self, line: usize) -> Result<(), RecordError> {
        let word = mem::take(&mut self.word);
        if word.is_empty() {
            return Ok(());
        }
        self.not_after_result(line, &word)?;
        if RESULTS.contains(&word.as_str()) {
            self.record.result = Some((word, line));
            return Ok(());
        }
        let rest = without_number(&word);
        if rest.is_empty() {
            return Ok(());
        }
        let number = self.set_stones() + self.stones() + 1;
        let points = points(&rest.to_ascii_lowercase()).ok_or_else(|| RecordError::NotAPoint {
            line,
            number,
            token: word.clone(),
        })?;
        let stones = points.into_iter().map(|point| Written {
            step: RecordStep::Stone(point),
            line,
        });
        self.record.steps.extend(stones);
        if self.first_word.is_none() {
            self.first_word = Some(rest.to_string());
        }
        Ok(())
    }

    /// A comment ends: an opening step, or a remark passed over.
    fn close_comment(&mut self) -> Result<(), RecordError> {
        let Some((line, text)) = self.comment.take() else {
            return Ok(());
        };
        let comment = text.trim();
        let step = opening_step(comment).map_err(|why| RecordError::BadStep {
            line,
            comment: comment.to_string(),
            why,
        })?;
        if let Some(step) = step {
            self.not_after_result(line, &format!("{{{comment}}}"))?;
            self.record.steps.push(Written { step, line });
        }
        Ok(())
    }

    fn not_after_result(&self, line: usize, token: &str) -> Result<(), RecordError> {
        match &self.record.result {
            Some((result, _)) => Err(RecordError::AfterResult {
                line,
                token: token.to_string(),
                result: result.clone(),
            }),
            None => Ok(()),
        }
    }

    /// The stones of the position the `FEN` tag sets, from which the record numbers on.
    fn set_stones(&self) -> usize {
        (self.record.tags.iter())
            .find(|t| t.name.eq_ignore_ascii_case("FEN"))
            .and_then(|t| Board::from_fen(t.value.trim()).ok())
            .map_or(0, |board| board.count())
    }

    /// The stones read so far.
    fn stones(&self) -> usize {
        (self.record.steps.iter())
            .filter(|w| matches!(w.step, RecordStep::Stone(_)))
            .count()
    }

    /// The record, once every line is read: no comment left open, and something recorded
    /// (a record of no stones may still give a result, by its tag).
    fn finish(self) -> Result<RenjuRecord, RecordError> {
        if let Some((line, _)) = self.comment {
            return Err(RecordError::Unclosed { line });
        }
        let tagged = (self.record.tags.iter()).any(|t| t.name.eq_ignore_ascii_case("Result"));
        if self.record.steps.is_empty() && self.record.result.is_none() && !tagged {
            return Err(RecordError::Empty);
        }
        Ok(self.record)
    }
}

/// A tag value after its opening quote: the value (`\"` a quote, `\\` a backslash, as in
/// PGN) and the text after its closing quote; `None` if it is never closed.
fn quoted(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?.1),
            '"' => return Some((value, &text[at + 1..])),
            c => value.push(c),
        }
    }
    None
}

/// `word` without a leading move number (`12.`, `12...`, `12.h8`, or `12` alone).
fn without_number(word: &str) -> &str {
    let after_digits = word.trim_start_matches(|c: char| c.is_ascii_digit());
    if after_digits.len() == word.len() {
        return word;
    }
    let rest = after_digits.trim_start_matches('.');
    if rest.len() < after_digits.len() || rest.is_empty() {
        rest
    } else {
        word
    }
}

/// The points of one lower-case word: `h8`, or points run together as some programs write a
/// game (`h8i9j10k11`), read greedily: a file `a`-`o`, then a rank of one digit, or two while
/// the rank stays within 15, and then the next point's file or the word's end. `None` if the
/// word is not that.
fn points(word: &str) -> Option<Vec<Point>> {
    let bytes = word.as_bytes();
    let digit = |at: usize| {
        bytes
            .get(at)
            .filter(|b| b.is_ascii_digit())
            .map(|b| b - b'0')
    };
    let mut points = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let file = bytes[at].checked_sub(b'a')?;
        let mut rank = digit(at + 1).filter(|&d| d > 0)?;
        at += 2;
        if let Some(d) = digit(at).filter(|d| rank * 10 + d <= 15) {
            rank = rank * 10 + d;
            at += 1;
        }
        if bytes.get(at).is_some_and(|b| !b.is_ascii_lowercase()) {
            return None;
        }
        points.push(Point::new(file, rank - 1)?);
    }
    (!points.is_empty()).then_some(points)
}

/// The opening step a comment names, `None` for a remark, or why its words do not fit the
/// step it names.
fn opening_step(comment: &str) -> Result<Option<RecordStep>, String> {
    let mut words = comment
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty());
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    let step = match first.to_ascii_lowercase().as_str() {
        "swap" if rest.is_empty() => RecordStep::Swap,
        "swap" => return Err("a swap is written {swap}, with no words after it".into()),
        "declare" => declared(&rest)?,
        "offer" => offered(&rest)?,
        _ => return Ok(None),
    };
    Ok(Some(step))
}

/// `{declare N}`: one number of offers, as a `declare` event may hold it.
fn declared(words: &[&str]) -> Result<RecordStep, String> {
    let [word] = words else {
        return Err("a declaration is written {declare N}, one number of fifth moves".into());
    };
    let offers: u32 = word
        .parse()
        .map_err(|_| format!("{} is not a number of fifth moves", quote(word)))?;
    opening_fields(&EventKind::Declare { offers })?;
    Ok(RecordStep::Declare(offers))
}

/// `{offer P1 P2 ...}`: distinct points, as an `offer` event may hold them.
fn offered(words: &[&str]) -> Result<RecordStep, String> {
    let points = words
        .iter()
        .map(|w| {
            Point::parse(&w.to_ascii_lowercase())
                .ok_or_else(|| format!("{} is not a renju point (a1..o15)", quote(w)))
        })
        .collect::<Result<Vec<Point>, String>>()?;
    let squares = points.iter().copied().map(Square::Renju).collect();
    opening_fields(&EventKind::Offer { points: squares })?;
    Ok(RecordStep::Offer(points))
}

/// The log of a renju record, with `id` as the game id: the header (the rules and position
/// its tags give, its other tags with the players named by the colours they began with), a
/// `move` per stone with its colour as side, the opening's steps, and the events that give
/// the recorded result (see [`super::result`]).
pub fn log_from_record(record: &RenjuRecord, id: &str) -> Result<Imported, RecordError> {
    let mut header = Header::new(Variant::Renju, id);
    let first = set_rules(&mut header, &record.tags)?;
    header.tags = Header::record_tags(
        (record.tags.iter()).map(|t| (t.name.as_str(), t.value.as_str())),
        &RULE_TAGS,
    );
    let mut events = step_events(&record.steps, first);
    let (want, conflict) = recorded_result(record)?;
    let note = add_result(&header, &mut events, want, DECLARED);
    if replay(&header, &events).is_ok_and(|r| r.players_swapped()) {
        header.tags = swap_players(&header.tags);
    }
    let note = match (conflict, note) {
        (Some(c), Some(n)) => Some(format!("{c}; {n}")),
        (c, n) => c.or(n),
    };
    Ok(Imported {
        header,
        events,
        note,
    })
}

/// The rule options and start position the tags set; the colour of the first stone.
fn set_rules(header: &mut Header, tags: &[Tag]) -> Result<Stone, RecordError> {
    let bad = |tag: &Tag, why: String| RecordError::BadTagValue {
        line: tag.line,
        name: tag.name.clone(),
        value: tag.value.clone(),
        why,
    };
    let mut first = Stone::Black;
    for tag in tags {
        let value = tag.value.trim();
        match tag.name.to_ascii_lowercase().as_str() {
            "opening" => {
                let name = value.to_ascii_lowercase().replace("center", "centre");
                let rule = OpeningRule::parse(&name).ok_or_else(|| {
                    let names = OpeningRule::NAMES.join(", ");
                    bad(tag, format!("is not an opening rule ({names})"))
                })?;
                header.rules.opening = Some(rule);
            }
            "forbidden" => {
                let rule = ForbiddenRule::parse(&value.to_ascii_lowercase())
                    .ok_or_else(|| bad(tag, "is not claim, replay or loss".into()))?;
                header.rules.forbidden = Some(rule);
            }
            "fen" => {
                let board = Board::from_fen(value).map_err(|e| bad(tag, e.to_string()))?;
                first = board.to_move();
                header.start = Some(board.to_fen());
            }
            _ => {}
        }
    }
    Ok(first)
}

/// The result the record gives (the `Result` tag, else the move text's last word), and a
/// sentence when the two disagree.
fn recorded_result(
    record: &RenjuRecord,
) -> Result<(Option<GameResult>, Option<String>), RecordError> {
    let tag = (record.tags.iter()).find(|t| t.name.eq_ignore_ascii_case("Result"));
    let tagged = match tag {
        Some(t) if RESULTS.contains(&t.value.trim()) => Some(t.value.trim()),
        Some(t) => {
            return Err(RecordError::BadTagValue {
                line: t.line,
                name: t.name.clone(),
                value: t.value.clone(),
                why: "is not 1-0, 0-1, 1/2-1/2 or *".into(),
            });
        }
        None => None,
    };
    let text = record.result.as_ref().map(|(r, _)| r.as_str());
    let conflict = match (tagged, text) {
        (Some(t), Some(m)) if t != m => Some(format!(
            "the Result tag says {t} and the move text ends {m}; the tag is followed"
        )),
        _ => None,
    };
    Ok((tagged.or(text).and_then(GameResult::parse), conflict))
}

/// The events of the record's steps from a position where `first` places next: a stone's
/// side is its colour, a swap's the colour of the next stone, a declaration's the colour of
/// the last stone; offers are black's, and the stone after them is white's choice.
fn step_events(steps: &[Written], first: Stone) -> Vec<Event> {
    let mut to_move = first;
    let mut offered = false;
    let mut events = Vec::with_capacity(steps.len() + 2);
    for written in steps {
        let (side, kind) = match &written.step {
            RecordStep::Stone(point) => {
                let to = Square::Renju(*point);
                let colour = to_move;
                to_move = colour.other();
                if mem::take(&mut offered) {
                    (Side::Second, EventKind::Choose { to })
                } else {
                    (Side::from(colour), EventKind::Place { to })
                }
            }
            RecordStep::Swap => (Side::from(to_move), EventKind::Swap),
            RecordStep::Declare(offers) => (
                Side::from(to_move.other()),
                EventKind::Declare { offers: *offers },
            ),
            RecordStep::Offer(points) => {
                offered = true;
                let points = points.iter().copied().map(Square::Renju).collect();
                (Side::First, EventKind::Offer { points })
            }
        };
        events.push(plain(side, kind));
    }
    events
}

/// The tags with every `Black...` tag named `White...` and the other way round: the players
/// after an odd number of swaps hold the other colours.
fn swap_players(tags: &[(String, String)]) -> Vec<(String, String)> {
    let swapped = |name: &str| {
        if let Some(rest) = name.strip_prefix("Black") {
            format!("White{rest}")
        } else if let Some(rest) = name.strip_prefix("White") {
            format!("Black{rest}")
        } else {
            name.to_string()
        }
    };
    (tags.iter())
        .map(|(name, value)| (swapped(name), value.clone()))
        .collect()
}

/// A renju game as a record, from its log: the stones and opening steps that stand after the
/// referee's judgment (a step it voided is left out, a stone a claim took off the board
/// too), up to the end of the game; the header's tags with `Black` and `White` naming who
/// holds each colour after the swaps; the opening rule; the result (`*` while the game goes
/// on). The importer reads it back with the same stones and steps. `Ok(None)` for the other
/// games.
pub fn renju_from_log(header: &Header, events: &[Event]) -> Result<Option<String>, SetupError> {
    if header.variant != Variant::Renju {
        return Ok(None);
    }
    let mut referee = Referee::new(header)?;
    let mut steps = Vec::new();
    for (seq, event) in (1..).zip(events) {
        if referee.ending().is_some() {
            break;
        }
        let before = board(&referee);
        let step = referee.step(seq, event);
        note_step(&mut steps, seq, event, &step);
        note_stones(&mut steps, event, &step, &before, &board(&referee));
    }
    Ok(Some(write_record(&referee, &steps)))
}

/// The board the referee holds.
fn board(referee: &Referee) -> Board {
    Board::from_fen(&referee.fen()).expect("a renju referee writes a renju FEN")
}

/// An opening step the referee let stand.
fn note_step(steps: &mut Vec<RecordStep>, seq: u64, event: &Event, step: &Step) {
    let voided = step.rulings.iter().any(|r| {
        r.at == seq
            && ((r.kind == RulingKind::IllegalMove && r.effect == Effect::CorrectionRequired)
                || r.kind == RulingKind::InvalidEvent)
    });
    let written = match &event.kind {
        EventKind::Swap => RecordStep::Swap,
        EventKind::Declare { offers } => RecordStep::Declare(*offers),
        EventKind::Offer { points } => RecordStep::Offer(points.iter().filter_map(point).collect()),
        _ => return,
    };
    if !voided {
        steps.push(written);
    }
}

/// The stones the event took off the board and placed on it: those its own `move` or
/// `choose`, or the moves derived from it, name in their order.
fn note_stones(
    steps: &mut Vec<RecordStep>,
    event: &Event,
    step: &Step,
    before: &Board,
    after: &Board,
) {
    for gone in Point::all().filter(|&p| before.stone(p).is_some() && after.stone(p).is_none()) {
        if let Some(at) = steps.iter().rposition(|s| *s == RecordStep::Stone(gone)) {
            steps.remove(at);
        }
    }
    let placed: Vec<Point> = Point::all()
        .filter(|&p| before.stone(p).is_none() && after.stone(p).is_some())
        .collect();
    let named = (step.made.iter().map(|(made, _)| made))
        .chain([event])
        .filter_map(|e| match &e.kind {
            EventKind::Place { to } | EventKind::Choose { to } => point(to),
            _ => None,
        });
    let mut order: Vec<Point> = Vec::with_capacity(placed.len());
    for p in named.chain(placed.iter().copied()) {
        if placed.contains(&p) && !order.contains(&p) {
            order.push(p);
        }
    }
    steps.extend(order.into_iter().map(RecordStep::Stone));
}

/// The renju point an event's square names.
fn point(square: &Square) -> Option<Point> {
    match square {
        Square::Renju(p) => Some(*p),
        _ => None,
    }
}

/// The record's text: tags, numbered stones and steps, the result.
fn write_record(referee: &Referee, steps: &[RecordStep]) -> String {
    let header = referee.header();
    let result = referee.ending().map_or("*", |e| e.result.as_str());
    let mut tags = super::written_tags(header, &RULE_TAGS);
    if referee.players_swapped() {
        tags = swap_players(&tags);
    }
    tags.push(("Result".into(), result.into()));
    if let Some(opening) = header.rules.opening {
        tags.push(("Opening".into(), opening.to_string()));
    }
    if let Some(forbidden) = header.rules.forbidden {
        tags.push(("Forbidden".into(), forbidden.to_string()));
    }
    let mut first = 1;
    if let Some(fen) = &header.start {
        tags.push(("FEN".into(), fen.clone()));
        first += Board::from_fen(fen).map_or(0, |b| b.count());
    }
    tags.push(("Variant".into(), "renju".into()));
    write(&tags, first, steps, result)
}

/// Tags, then the move text in lines of at most [`WIDTH`] columns: each stone with its
/// number (`12. h9`), each opening step as its comment, then the result.
fn write(tags: &[(String, String)], first: usize, steps: &[RecordStep], result: &str) -> String {
    let mut out = String::new();
    for (name, value) in tags {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{name} \"{value}\"]\n"));
    }
    out.push('\n');
    let mut number = first;
    let mut units: Vec<String> = steps
        .iter()
        .map(|step| match step {
            RecordStep::Stone(p) => {
                number += 1;
                format!("{}. {p}", number - 1)
            }
            RecordStep::Swap => "{swap}".to_string(),
            RecordStep::Declare(n) => format!("{{declare {n}}}"),
            RecordStep::Offer(points) => {
                let names: Vec<String> = points.iter().map(Point::to_string).collect();
                format!("{{offer {}}}", names.join(" "))
            }
        })
        .collect();
    units.push(result.to_string());
    let mut width = 0;
    for unit in &units {
        if width > 0 && width + 1 + unit.len() > WIDTH {
            out.push('\n');
            width = 0;
        } else if width > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(unit);
        width += unit.len();
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stones(text: &str) -> Vec<String> {
        let record = parse(text).expect("read");
        (record.steps.iter())
            .map(|w| match &w.step {
                RecordStep::Stone(p) => p.to_string(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn points_run_together_are_read_greedily() {
        let read =
            |w: &str| points(w).map(|ps| ps.iter().map(Point::to_string).collect::<Vec<_>>());
        assert_eq!(read("h8i9j10k11").unwrap(), ["h8", "i9", "j10", "k11"]);
        assert_eq!(read("a11b2").unwrap(), ["a11", "b2"]);
        assert_eq!(read("a1a15o15").unwrap(), ["a1", "a15", "o15"]);
        assert_eq!(read("o15").unwrap(), ["o15"]);
        for bad in [
            "p1", "a16", "a0", "a01", "h", "h8i", "8h", "h8-i9", "a115", "",
        ] {
            assert_eq!(points(bad), None, "{bad}");
        }
    }

    #[test]
    fn move_numbers_are_passed_over() {
        assert_eq!(without_number("12."), "");
        assert_eq!(without_number("12"), "");
        assert_eq!(without_number("12...h8"), "h8");
        assert_eq!(without_number("1.h8"), "h8");
        assert_eq!(without_number("h8"), "h8");
        assert_eq!(without_number("1-0"), "1-0");
    }

    #[test]
    fn bare_lists_in_every_shape_give_the_same_stones() {
        let want = ["h8", "h9", "i8", "i9", "j10"];
        for text in [
            "1. h8 2. h9 3. i8 4. i9 5. j10",
            "1.H8 2.H9\n3.I8 4.I9 5.J10",
            "h8 h9 i8 i9 j10",
            "h8,h9, i8,i9,j10",
            "h8h9i8i9j10",
        ] {
            assert_eq!(stones(text), want, "{text}");
        }
    }

    #[test]
    fn opening_steps_are_read_from_their_comments_and_remarks_passed_over() {
        let text = "[Variant \"renju\"] [Opening \"soosorv-8\"]\n1. h8 2. h9 {a fine move} 3. h10 \
                    {swap}\n4. h6 {Declare 2} {offer g7, J11} ; the offers\n5. j11 *";
        let record = parse(text).expect("read");
        let steps: Vec<RecordStep> = record.steps.iter().map(|w| w.step.clone()).collect();
        let p = |s: &str| Point::parse(s).unwrap();
        assert_eq!(
            steps,
            [
                RecordStep::Stone(p("h8")),
                RecordStep::Stone(p("h9")),
                RecordStep::Stone(p("h10")),
                RecordStep::Swap,
                RecordStep::Stone(p("h6")),
                RecordStep::Declare(2),
                RecordStep::Offer(vec![p("g7"), p("j11")]),
                RecordStep::Stone(p("j11")),
            ]
        );
        assert_eq!(record.tags.len(), 2, "two tags on one line");
        assert_eq!(record.result, Some(("*".to_string(), 4)));
        assert_eq!(record.steps[6].line, 3);
    }

    #[test]
    fn malformed_records_name_the_line_and_the_token() {
        let err = |text: &str| parse(text).expect_err("refused").to_string();
        assert_eq!(
            err("[Event \"x\"]\n1. h8 2. h9\n3. p16"),
            "line 3: move 3 \"p16\" is not a renju point (a1..o15)"
        );
        assert_eq!(
            err("h8 h9 {declare two}"),
            "line 1: {declare two}: \"two\" is not a number of fifth moves"
        );
        assert_eq!(
            err("h8\nh9 {declare 0}"),
            "line 2: {declare 0}: \"offers\" must be 1 to 225, found 0"
        );
        assert_eq!(
            err("h8 {offer z9 g7}"),
            "line 1: {offer z9 g7}: \"z9\" is not a renju point (a1..o15)"
        );
        assert_eq!(
            err("h8 {offer g7 g7}"),
            "line 1: {offer g7 g7}: \"points\" names g7 twice"
        );
        assert_eq!(
            err("h8 {swap now}"),
            "line 1: {swap now}: a swap is written {swap}, with no words after it"
        );
        assert_eq!(
            err("h8 {a remark\nthat never ends"),
            "line 1: the comment opened here is never closed"
        );
        assert_eq!(
            err("[Event x]\nh8"),
            "line 1: \"[Event x]\" is not a tag pair [Name \"value\"]"
        );
        assert_eq!(
            err("h8 h9 1-0\ni8"),
            "line 2: \"i8\" after the result 1-0: a renju record holds one game"
        );
        assert_eq!(
            err("h8 h9\n[Event \"next\"]"),
            "line 2: a tag after the move text: a renju record holds one game"
        );
        assert_eq!(
            err("[Event \"x\"]\n"),
            "no stone and no result in the record"
        );
        let set = "[FEN \"15/15/15/15/15/15/15/7x7/7o7/15/15/15/15/15/15 b\"]\n3. i9 4. q1";
        assert_eq!(
            err(set),
            "line 2: move 4 \"q1\" is not a renju point (a1..o15)",
            "numbered on from the set position's two stones"
        );
    }

    #[test]
    fn tags_the_header_takes_are_checked() {
        let err = |text: &str| {
            let record = parse(text).expect("read");
            log_from_record(&record, "g")
                .expect_err("refused")
                .to_string()
        };
        let message = err("[Event \"x\"]\n[Opening \"kagetsu\"]\nh8 *");
        assert!(
            message.starts_with("line 2: tag Opening \"kagetsu\": is not an opening rule (centre"),
            "{message}"
        );
        assert_eq!(
            err("[Forbidden \"never\"]\nh8"),
            "line 1: tag Forbidden \"never\": is not claim, replay or loss"
        );
        assert_eq!(
            err("[Result \"2-0\"]\nh8"),
            "line 1: tag Result \"2-0\": is not 1-0, 0-1, 1/2-1/2 or *"
        );
    }

    #[test]
    fn the_sides_of_steps_follow_the_stones() {
        use Side::{First as B, Second as W};
        let record = parse("h8 {swap} h9 h10 {declare 3} h6 {offer g7 j11 k12} j11 a1").unwrap();
        let log = log_from_record(&record, "g").expect("log");
        let sides: Vec<(Side, &str)> = (log.events.iter())
            .map(|e| (e.side, e.kind.type_name()))
            .collect();
        assert_eq!(
            sides,
            [
                (B, "move"),
                (W, "swap"),
                (W, "move"),
                (B, "move"),
                (B, "declare"),
                (W, "move"),
                (B, "offer"),
                (W, "choose"),
                (W, "move"),
            ]
        );
    }

    #[test]
    fn renju_is_told_from_other_records() {
        assert!(looks_like_renju("[Variant \"Renju\"]\n"));
        assert!(looks_like_renju("[Event \"x\"] [Game \"renju\"]\n"));
        assert!(looks_like_renju("1. h8 2. h9"));
        assert!(looks_like_renju("{opened by} h8,h9"));
        assert!(looks_like_renju("h8i9j10"));
        assert!(!looks_like_renju("1. h2e2 h9g7"), "an ICCS move");
        assert!(!looks_like_renju("[Event \"x\"]\n1. 32-28 18-23"));
        assert!(!looks_like_renju(
            "{\"type\":\"game\",\"variant\":\"renju\"}"
        ));
        assert!(!looks_like_renju("1. 炮二平五 马8进7"));
    }
}
