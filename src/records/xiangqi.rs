//! Xiangqi PGN games as xiangqi logs: one `move` event per ply, from the `FEN` tag's
//! position if it is not the standard start, then the events that give the recorded result
//! (see [`super::result`]: under xiangqi 4.2 a draw is offered after one's own move, so a
//! recorded draw is the last mover's offer and its acceptance).

use crate::event::{Event, EventKind, GameResult, Header, Side, Square};
use crate::games::Variant;
use crate::games::xiangqi::{Color, Move, Outcome, PgnError, PgnGame, Position};

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
