//! PDN game files and draughts logs: what `referee import` makes of a PDN game and what
//! `referee export --pdn` writes of a stored one.
//!
//! A PDN record holds moves and a result, not the events that ended the game. The import
//! writes each move with its exact captured pieces, and then, unless the referee already
//! ends the game by itself (no move left, 12.2; a draw rule of 12.3), the events that give
//! the recorded result (see [`super::result`]): for a draw an accepted offer (12.4) where
//! the rules allow one, otherwise the arbiter's declaration of the recorded draw (a game
//! drawn before each player's 40th move, or a game not played).

use crate::event::{Event, EventKind, GameResult, Header, Side, Square};
use crate::games::Variant;
use crate::games::draughts::{self, Resolution};
use crate::games::draughts::{Color, Move, Outcome, PdnError, PdnGame, Position, write_pdn};
use crate::games::pgn_text;
use crate::referee::{Referee, SetupError};

use super::result::add_result;

/// A PDN game as a draughts log.
#[derive(Clone, Debug, PartialEq)]
pub struct PdnImport {
    pub header: Header,
    pub events: Vec<Event>,
    /// Where the referee's verdict differs from the record, a sentence saying how.
    pub note: Option<String>,
}

/// PDN tags that the header, the moves or the variant already say; the others go into the
/// header's `tags` on import and come back from them on export.
const PDN_RULE_TAGS: &[&str] = &["FEN", "SetUp", "Result", "GameType"];

/// The log of a PDN game, with `id` as the game id.
pub fn log_from_pdn(game: &PdnGame, id: &str) -> Result<PdnImport, PdnError> {
    let start = game.start()?;
    let mut header = Header::new(Variant::Draughts, id);
    if game.tag("FEN").is_some() {
        header.start = Some(start.to_fen());
    }
    header.tags = Header::record_tags(
        game.tags.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        PDN_RULE_TAGS,
    );
    let mut events = move_events(game, start)?;
    let mut note = add_result(
        &header,
        &mut events,
        game.outcome().map(game_result),
        DECLARED,
    );
    if let Some((tag, text)) = game.result_conflict() {
        let conflict =
            format!("the Result tag says {tag} and the move text ends {text}; the tag is followed");
        note = Some(match note {
            Some(n) => format!("{conflict}; {n}"),
            None => conflict,
        });
    }
    Ok(PdnImport {
        header,
        events,
        note,
    })
}

/// One `move` event per written move, each with the pieces it takes.
fn move_events(game: &PdnGame, start: Position) -> Result<Vec<Event>, PdnError> {
    let mut pos = start;
    let mut events = Vec::with_capacity(game.moves.len() + 2);
    for written in &game.moves {
        let side = side_of(pos.side_to_move());
        let mv = match pos.find_pdn(written) {
            Ok(mv) => mv,
            Err(PdnError::NoSuchMove { .. }) => irregular(&pos, written)?,
            Err(e) => return Err(e),
        };
        events.push(move_event(side, &mv));
        pos.play(&mv);
    }
    Ok(events)
}

/// A recorded move that breaks a rule is imported as it was played, so that the referee
/// rules on it (a record is evidence, not something to tidy up); one that cannot be made on
/// the board at all makes the record unreadable.
fn irregular(pos: &Position, written: &draughts::PdnMove) -> Result<Move, PdnError> {
    let (from, to) = (
        written.squares[0],
        written.squares[written.squares.len() - 1],
    );
    match pos.resolve(from, to, None) {
        Resolution::Irregular { played, .. } => Ok(played),
        _ => Err(PdnError::NoSuchMove {
            line: written.line,
            text: written.to_string(),
        }),
    }
}

fn move_event(side: Side, mv: &Move) -> Event {
    let sq = Square::Draughts;
    Event {
        side,
        ts_ms: None,
        kind: EventKind::Move {
            from: sq(mv.from()),
            to: sq(mv.to()),
            promotion: None,
            captures: mv
                .is_capture()
                .then(|| mv.captured_set().into_iter().map(sq).collect()),
        },
    }
}

/// Why the arbiter declares a recorded draw that no offer could give.
const DECLARED: &str = "the recorded result is a draw, agreed or decided where the rules allow no \
                        offer (draughts 12.4: only after 40 moves each)";

fn game_result(outcome: Outcome) -> GameResult {
    match outcome {
        Outcome::WhiteWins => GameResult::FirstWins,
        Outcome::BlackWins => GameResult::SecondWins,
        Outcome::Draw => GameResult::Draw,
    }
}

fn side_of(color: Color) -> Side {
    match color {
        Color::White => Side::First,
        Color::Black => Side::Second,
    }
}

/// The game a draughts referee has judged, as PDN: the moves that stand in the shortest
/// notation (the full path only where start and end leave the captured pieces open), and
/// the result if the game has ended. `None` for the other games.
pub fn pdn_from_referee(referee: &Referee) -> Option<String> {
    pdn_with_clocks(referee, &[])
}

/// A draughts game's PDN from its log: as [`pdn_from_referee`], each move that stands followed
/// by the mover's clock after the press that ended it (`{[%clk 1:29:59]}`, as the clock
/// showed). `Ok(None)` for the other games.
pub fn pdn_from_log(header: &Header, events: &[Event]) -> Result<Option<String>, SetupError> {
    let mut referee = Referee::new(header)?;
    // The clock of each move of the record (moves a correction voids are dropped with it).
    let mut clocks: Vec<Option<u64>> = Vec::new();
    let mut movers: Vec<Side> = Vec::new();
    for (seq, event) in (1..).zip(events) {
        referee.apply(seq, event);
        let Some(record) = referee.draughts_record() else {
            return Ok(None);
        };
        let count = record.moves().count();
        while clocks.len() > count {
            clocks.pop();
            movers.pop();
        }
        while clocks.len() < count {
            clocks.push(None);
            movers.push(event.side);
        }
        if let EventKind::Clock {
            first_ms,
            second_ms,
        } = event.kind
            && movers.last() == Some(&event.side)
            && clocks.last() == Some(&None)
        {
            let shown = if event.side == Side::First {
                first_ms
            } else {
                second_ms
            };
            if let Some(last) = clocks.last_mut() {
                *last = shown;
            }
        }
    }
    Ok(pdn_with_clocks(&referee, &clocks))
}

fn pdn_with_clocks(referee: &Referee, clocks: &[Option<u64>]) -> Option<String> {
    let record = referee.draughts_record()?;
    let start = record.start();
    let mut pos = start.clone();
    let mut texts = Vec::new();
    for (i, mv) in record.moves().enumerate() {
        let text = pos.pdn_text(&mv);
        texts.push(match clocks.get(i).copied().flatten() {
            Some(ms) => format!("{text} {}", pgn_text::clock_comment(ms)),
            None => text,
        });
        pos.play(&mv);
    }
    let outcome = referee.ending().map(|e| match e.result {
        GameResult::FirstWins => Outcome::WhiteWins,
        GameResult::SecondWins => Outcome::BlackWins,
        GameResult::Draw => Outcome::Draw,
    });
    let result = draughts::result_text(outcome);
    let header = referee.header();
    let mut tags = super::written_tags(header, PDN_RULE_TAGS);
    tags.push(("GameType".to_string(), "20".to_string()));
    if *start != Position::startpos() {
        tags.push(("SetUp".to_string(), "1".to_string()));
        tags.push(("FEN".to_string(), start.to_fen()));
    }
    tags.push(("Result".to_string(), result.to_string()));
    Some(write_pdn(&tags, start.side_to_move(), &texts, result))
}
