//! Xiangqi PGN games as xiangqi logs: one `move` event per ply, from the `FEN` tag's
//! position if it is not the standard start, then the events that give the recorded result
//! (see [`super::result`]: under xiangqi 4.2 a draw is offered after one's own move, so a
//! recorded draw is the last mover's offer and its acceptance).

use crate::event::{Event, EventKind, GameResult, Header, Side, Square};
use crate::games::xiangqi::{Color, Move, Outcome, PgnError, PgnGame, Position};
use crate::games::{Variant, pgn_text};

use crate::referee::{Referee, SetupError};

use super::Imported;
use super::result::add_result;

/// Why the arbiter declares a recorded draw that no offer could give (a game of no moves).
const DECLARED: &str = "the recorded result is a draw, with no move for an offer to follow";

/// Tags that set up the game rather than describe it (the header, the moves and the variant
/// say them); the others (Event, Site, Date, Round, Red, Black, RedTeam, BlackTeam, ECCO,
/// Opening...) go into the header's `tags`.
const SETUP_TAGS: [&str; 4] = ["FEN", "SetUp", "Result", "Game"];

/// The log of a xiangqi PGN game, with `id` as the game id.
pub fn log_from_pgn(game: &PgnGame, id: &str) -> Result<Imported, PgnError> {
    let start = game.start()?;
    let mut header = Header::new(Variant::Xiangqi, id);
    if start.to_fen() != Position::startpos().to_fen() {
        header.start = Some(start.to_fen());
    }
    header.tags = Header::record_tags(
        game.tags.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        &SETUP_TAGS,
    );
    let moves = game.legal_moves()?;
    let mut events = move_events(start, &moves);
    let want = game.outcome().map(game_result);
    let note = add_result(&header, &mut events, want, DECLARED);
    Ok(Imported {
        header,
        events,
        note,
    })
}

fn move_events(start: Position, moves: &[Move]) -> Vec<Event> {
    let mut pos = start;
    moves
        .iter()
        .map(|&mv| {
            let side = match pos.side_to_move() {
                Color::Red => Side::First,
                Color::Black => Side::Second,
            };
            pos.play(mv);
            Event {
                side,
                ts_ms: None,
                kind: EventKind::Move {
                    from: Square::Xiangqi(mv.from),
                    to: Square::Xiangqi(mv.to),
                    promotion: None,
                    captures: None,
                },
            }
        })
        .collect()
}

fn game_result(outcome: Outcome) -> GameResult {
    match outcome {
        Outcome::RedWins => GameResult::FirstWins,
        Outcome::BlackWins => GameResult::SecondWins,
        Outcome::Draw => GameResult::Draw,
    }
}

/// A xiangqi game as PGN, from its log: the header's tags in their order (Event first, the
/// game id where none is given), `Game "Chinese Chess"`, `FEN` when the game does not start
/// from the standard position, `Format "ICCS"`, then the moves that stand (played, derived
/// from a board's reports, or set by the arbiter; a move the rules refused is not one) in ICCS
/// (`H2-E2`), each followed by the mover's clock after the press that ended it (`{[%clk
/// 1:29:59]}`, as chess PGN writes it), and the result (`*` while the game goes on). The
/// importer reads it back with the same moves.
pub fn pgn_from_log(header: &Header, events: &[Event]) -> Result<String, SetupError> {
    let mut referee = Referee::new(header)?;
    // Each move that stands: its ICCS, its side, and the mover's clock once pressed.
    let mut moves: Vec<(String, Side, Option<u64>)> = Vec::new();
    let iccs = |e: &Event| match &e.kind {
        EventKind::Move { from, to, .. } => Some(format!("{from}-{to}").to_ascii_uppercase()),
        _ => None,
    };
    for (seq, event) in (1..).zip(events) {
        let before = referee.fen();
        let step = referee.step(seq, event);
        if !step.made.is_empty() {
            for (made, _) in &step.made {
                moves.extend(iccs(made).map(|m| (m, made.side, None)));
            }
        } else if referee.fen() != before {
            moves.extend(iccs(event).map(|m| (m, event.side, None)));
        }
        if let EventKind::Clock {
            first_ms,
            second_ms,
        } = event.kind
            && let Some(last) = moves.last_mut()
            && last.1 == event.side
            && last.2.is_none()
        {
            last.2 = if event.side == Side::First {
                first_ms
            } else {
                second_ms
            };
        }
    }
    let result = referee.ending().map_or("*", |e| e.result.as_str());
    let mut tags = super::written_tags(header, &SETUP_TAGS);
    tags.push(("Game".into(), "Chinese Chess".into()));
    if let Some(fen) = &header.start {
        tags.push(("FEN".into(), fen.clone()));
    }
    tags.push(("Format".into(), "ICCS".into()));
    tags.push(("Result".into(), result.into()));
    let black_first = header
        .start
        .as_deref()
        .and_then(|fen| Position::from_fen(fen).ok())
        .is_some_and(|p| p.side_to_move() == Color::Black);
    let moves: Vec<String> = moves
        .into_iter()
        .map(|(mv, _, clock)| match clock {
            Some(ms) => format!("{mv} {}", pgn_text::clock_comment(ms)),
            None => mv,
        })
        .collect();
    Ok(pgn_text::write(&tags, black_first, &moves, result))
}
