//! The recorded and generated games the benches replay (shared by benches/replay.rs and
//! benches/boards.rs): the 500 CCPD xiangqi master games, the 171 FMJD draughts games, and
//! seeded random chess_gjq games. The data are the copies in `tests/data` (attribution in
//! `tests/data/README.md`).

use std::path::{Path, PathBuf};

use referee::cli::pdn::log_from_pdn;
use referee::event::{Event, EventKind, Header, Side, Square};
use referee::games::Variant;
use referee::games::draughts::parse_pdn;

pub fn games() -> Vec<Vec<Event>> {
    let path = shared("xiangqi/ccpd/manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("manifest json");
    let games = manifest.as_array().expect("a list of games");
    games
        .iter()
        .map(|g| events(g["moves_iccs"].as_str().expect("moves_iccs")))
        .collect()
}

pub fn events(moves: &str) -> Vec<Event> {
    let sq = |s: &str| Square::parse_text(Variant::Xiangqi, s).expect("square");
    moves
        .split_whitespace()
        .zip([Side::First, Side::Second].into_iter().cycle())
        .map(|(m, side)| Event {
            side,
            ts_ms: None,
            kind: EventKind::Move {
                from: sq(&m[0..2]),
                to: sq(&m[2..4]),
                promotion: None,
                captures: None,
            },
        })
        .collect()
}

/// The shared data set's `RELATIVE` path as copied into `tests/data` (attribution in
/// `tests/data/README.md`).
pub fn shared(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(relative)
}

/// The 171 draughts games as logs, with the events that give their results.
pub fn draughts_games() -> Vec<(Header, Vec<Event>)> {
    let dir = shared("draughts/fmjd_pdn_standard/games");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("games directory")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = String::from_utf8_lossy(&std::fs::read(&file).expect("read")).into_owned();
        for game in parse_pdn(&text).expect("pdn") {
            let log = log_from_pdn(&game, "bench").expect("import");
            out.push((log.header, log.events));
        }
    }
    out
}

/// A small deterministic generator (64-bit LCG, high bits), so the games are the same on
/// every run.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(self.0 >> 33).unwrap_or(0) % n.max(1)
    }
}

/// Random chess_gjq games from the hidden start (no chess_gjq game records exist): each side's
/// 15 hidden pieces are shuffled over its start squares (3.1.2), moves are drawn uniformly
/// from the legal ones, and each hidden piece's move is followed by its `reveal` from the
/// shuffle (promoting to a queen where a revealed pawn stands on the last rank).
pub fn chess_gjq_games(count: usize, max_plies: usize) -> Vec<Vec<Event>> {
    use referee::games::chess_gjq::{self as gjq, Color, Role};
    let mut rng = Lcg(0x5EED_C4E5);
    (0..count)
        .map(|_| {
            let mut setup: [Option<Role>; 64] = [None; 64];
            for color in [Color::White, Color::Black] {
                let squares: Vec<gjq::Square> = (0..gjq::Square::COUNT)
                    .filter_map(gjq::Square::from_index)
                    .filter(|&sq| gjq::start_role(color, sq).is_some_and(|role| role != Role::King))
                    .collect();
                let mut roles: Vec<Role> = squares
                    .iter()
                    .filter_map(|&sq| gjq::start_role(color, sq))
                    .collect();
                for i in (1..roles.len()).rev() {
                    roles.swap(i, rng.below(i + 1));
                }
                for (sq, role) in squares.into_iter().zip(roles) {
                    setup[sq.index()] = Some(role);
                }
            }
            let mut pos = gjq::Position::startpos();
            let mut events = Vec::new();
            for _ in 0..max_plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mv = moves[rng.below(moves.len())];
                let side = match pos.side_to_move() {
                    Color::White => Side::First,
                    Color::Black => Side::Second,
                };
                let mut origin = setup[mv.from.index()].take();
                pos.play(mv);
                events.push(Event {
                    side,
                    ts_ms: None,
                    kind: EventKind::Move {
                        from: Square::ChessGjq(mv.from),
                        to: Square::ChessGjq(mv.to),
                        promotion: mv.promotion.map(|r| r.upper_char()),
                        captures: None,
                    },
                });
                if let Some(square) = pos.pending_reveal() {
                    if square != mv.to {
                        // Castling (4.1.3): the hidden rook-square piece went from its corner
                        // to the king's other side.
                        let corner = if square.file() == 5 { 7 } else { 0 };
                        let from = gjq::Square::from_index(usize::from(square.rank() * 8 + corner));
                        origin = from.and_then(|sq| setup[sq.index()].take());
                    }
                    let role = origin.expect("a hidden piece moved from its start square");
                    let last_rank = match side {
                        Side::First => square.rank() == 7,
                        _ => square.rank() == 0,
                    };
                    let promotion = (role == Role::Pawn && last_rank).then_some(Role::Queen);
                    if pos.reveal(square, role, promotion).is_err() {
                        break;
                    }
                    events.push(Event {
                        side,
                        ts_ms: None,
                        kind: EventKind::Reveal {
                            square: Square::ChessGjq(square),
                            piece: role.upper_char(),
                            promotion: promotion.map(|r| r.upper_char()),
                        },
                    });
                }
                if pos.status() != gjq::Status::Ongoing {
                    break;
                }
            }
            events
        })
        .collect()
}
