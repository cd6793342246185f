//! The draw rules that count: threefold repetition (chess_gjq 6.4), perpetual check (6.2),
//! the 40-move rule once no hidden piece is left (6.5), and the dead position (6.1), both
//! automatic and when claimed. Each counter is named and kept explicitly, so a ruling can
//! say what it counted.

use crate::event::{ClaimKind, Side};
use crate::games::chess_gjq::{Color, Position, RepetitionKey, Square};
use crate::referee::Article;
use crate::referee::{Ruling, RulingKind};

use super::name;
use super::notation::Played;

/// Moves by each side without a capture that draw once no hidden piece is left (6.5).
const QUIET_MOVES_EACH: u32 = 40;

/// How often the same position must occur to draw (6.4).
const REPETITIONS: usize = 3;

/// A completed move: what it was and the position it left.
#[derive(Clone, Debug)]
struct Occurrence {
    key: RepetitionKey,
    seq: u64,
    /// `move 12 e2-e4=R`; `None` for the start.
    played: Option<Played>,
    mover: Color,
    /// Whether the move put the opponent's king in check.
    gave_check: bool,
}

/// The draw counters of one game.
#[derive(Clone, Debug)]
pub struct DrawCounters {
    /// Positions since the last irreversible move (capture, pawn move, hidden piece's move):
    /// no earlier position can occur again. The first entry may be the start (seq 0).
    since_irreversible: Vec<Occurrence>,
    /// Half-moves without capture played from positions with no hidden piece (6.5).
    quiet_plies: u32,
    /// The last capture: seq and move.
    last_capture: Option<(u64, Played)>,
    /// The move that turned up the last hidden piece: seq and move.
    last_hidden_gone: Option<(u64, Played)>,
}

impl DrawCounters {
    pub fn new(start: &Position) -> DrawCounters {
        let first = Occurrence {
            key: start.repetition_key(),
            seq: 0,
            played: None,
            mover: start.side_to_move().other(),
            gave_check: false,
        };
        DrawCounters {
            since_irreversible: vec![first],
            quiet_plies: 0,
            last_capture: None,
            last_hidden_gone: None,
        }
    }

    /// Counts a completed move played from `before` to `after`.
    pub fn record(
        &mut self,
        seq: u64,
        played: Played,
        before: &Position,
        after: &Position,
        gave_check: bool,
    ) {
        let captured = after.piece_count() < before.piece_count();
        if captured {
            self.last_capture = Some((seq, played));
        }
        let had_hidden = before.hidden_count() > 0;
        if had_hidden && after.hidden_count() == 0 {
            self.last_hidden_gone = Some((seq, played));
        }
        // 6.5 counts only moves made with no hidden piece left on the board.
        self.quiet_plies = if captured || had_hidden {
            0
        } else {
            self.quiet_plies + 1
        };
        if after.halfmove_clock() == 0 {
            self.since_irreversible.clear();
        }
        self.since_irreversible.push(Occurrence {
            key: after.repetition_key(),
            seq,
            played: Some(played),
            mover: before.side_to_move(),
            gave_check,
        });
    }

    /// The draw that arises by itself after a completed move, if any.
    pub fn automatic(&self, seq: u64, after: &Position) -> Option<Ruling> {
        if self.repeated() {
            return Some(self.repetition(seq));
        }
        if after.is_dead_position() {
            return Some(dead_position(seq, after));
        }
        (self.quiet_plies >= 2 * QUIET_MOVES_EACH).then(|| self.forty_moves(seq))
    }

    /// A claim checked against the counters: true draws, untrue is rejected with the counts.
    pub fn claim(&self, seq: u64, side: Side, claim: ClaimKind, pos: &Position) -> Ruling {
        match claim {
            ClaimKind::Repetition | ClaimKind::PerpetualCheck => {
                if self.repeated() {
                    return self.repetition(seq);
                }
                self.repetition_rejected(seq, side, claim)
            }
            ClaimKind::MoveLimit => {
                if self.quiet_plies >= 2 * QUIET_MOVES_EACH {
                    return self.forty_moves(seq);
                }
                self.forty_moves_rejected(seq, side, pos)
            }
            ClaimKind::InsufficientMaterial => {
                if pos.is_dead_position() {
                    return dead_position(seq, pos);
                }
                dead_position_rejected(seq, side, pos)
            }
            _ => rejected(
                seq,
                side,
                Article::ChessGjq("6"),
                format!(
                    "{} claimed {claim} at event {seq}, which is no draw or result under the \
                     chess_gjq rules (draws: 6.1-6.6)",
                    name(side)
                ),
            ),
        }
    }

    /// Whether the current position has occurred the times that draw (6.4); counted without
    /// collecting the occurrences, which only a ruling names.
    fn repeated(&self) -> bool {
        let Some(last) = self.since_irreversible.last() else {
            return false;
        };
        let same = self.since_irreversible.iter().filter(|o| o.key == last.key);
        same.count() >= REPETITIONS
    }

    /// Every occurrence of the current position since the last irreversible move.
    fn occurrences(&self) -> Vec<&Occurrence> {
        let Some(last) = self.since_irreversible.last() else {
            return Vec::new();
        };
        self.since_irreversible
            .iter()
            .filter(|o| o.key == last.key)
            .collect()
    }

    fn repetition(&self, seq: u64) -> Ruling {
        let seen = self.occurrences();
        // Seq 0 is the start position, which is no event.
        let evidence: Vec<u64> = seen.iter().map(|o| o.seq).filter(|s| *s > 0).collect();
        let list = occurrence_list(&seen);
        let first = seen.first().map_or(0, |o| o.seq);
        match self.perpetual_checker(first) {
            Some(checker) => {
                let text = format!(
                    "the same position occurred for the third time, after {list}, and every \
                     move of {} in between gave check: perpetual check (长将) is a draw \
                     (chess_gjq 6.2)",
                    checker.name()
                );
                Ruling::draw(
                    seq,
                    RulingKind::PerpetualCheck,
                    Article::ChessGjq("6.2"),
                    text,
                )
                .with_evidence(evidence)
            }
            None => {
                let text = format!(
                    "the same position (same pieces and hidden pieces on the same squares, \
                     same side to move, castling and en-passant rights) occurred for the \
                     third time, after {list}: a draw by repetition (chess_gjq 6.4)"
                );
                Ruling::draw(seq, RulingKind::Repetition, Article::ChessGjq("6.4"), text)
                    .with_evidence(evidence)
            }
        }
    }

    /// The side that gave check with every move after the event `first`, if one did.
    fn perpetual_checker(&self, first: u64) -> Option<Color> {
        let cycle: Vec<&Occurrence> = self
            .since_irreversible
            .iter()
            .filter(|o| o.seq > first)
            .collect();
        [Color::White, Color::Black].into_iter().find(|&c| {
            let mut by = cycle.iter().filter(|o| o.mover == c).peekable();
            by.peek().is_some() && by.all(|o| o.gave_check)
        })
    }

    fn repetition_rejected(&self, seq: u64, side: Side, claim: ClaimKind) -> Ruling {
        let seen = self.occurrences();
        let text = format!(
            "{} claimed {claim} at event {seq}, but the current position has occurred {} \
             time(s) ({}); a draw needs {REPETITIONS} (chess_gjq 6.4, 6.2)",
            name(side),
            seen.len(),
            occurrence_list(&seen)
        );
        let evidence = seen.iter().map(|o| o.seq).filter(|s| *s > 0).collect();
        rejected(seq, side, Article::ChessGjq("6.4"), text).with_evidence(with(evidence, seq))
    }

    fn forty_moves(&self, seq: u64) -> Ruling {
        let text = format!(
            "{}; since then {} moves by each side contain no capture ({}): {QUIET_MOVES_EACH} \
             moves by each side without a capture once no hidden piece is left draw \
             (chess_gjq 6.5)",
            self.hidden_gone_text(),
            self.quiet_plies / 2,
            self.capture_text()
        );
        Ruling::draw(seq, RulingKind::MoveLimit, Article::ChessGjq("6.5"), text)
            .with_evidence(with(self.counter_evidence(), seq))
    }

    fn forty_moves_rejected(&self, seq: u64, side: Side, pos: &Position) -> Ruling {
        let hidden = pos.hidden_count();
        let state = if hidden > 0 {
            format!(
                "{hidden} hidden piece(s) are still on the board ({}), so the count has not \
                 begun",
                hidden_squares(pos)
            )
        } else {
            format!(
                "{}; since then only {} half-move(s) without capture were played ({}), not \
                 {} ({QUIET_MOVES_EACH} by each side)",
                self.hidden_gone_text(),
                self.quiet_plies,
                self.capture_text(),
                2 * QUIET_MOVES_EACH
            )
        };
        let text = format!(
            "{} claimed the 40-move rule at event {seq}, but {state} (chess_gjq 6.5)",
            name(side)
        );
        rejected(seq, side, Article::ChessGjq("6.5"), text)
            .with_evidence(with(self.counter_evidence(), seq))
    }

    fn hidden_gone_text(&self) -> String {
        match &self.last_hidden_gone {
            Some((s, played)) => {
                format!("the last hidden piece was turned up at event {s} ({played})")
            }
            None => "no hidden piece was on the board from the start".to_string(),
        }
    }

    fn capture_text(&self) -> String {
        match &self.last_capture {
            Some((s, played)) => format!("last capture {played} at event {s}"),
            None => "no capture in the game".to_string(),
        }
    }

    fn counter_evidence(&self) -> Vec<u64> {
        let mut seqs: Vec<u64> = [&self.last_hidden_gone, &self.last_capture]
            .into_iter()
            .flatten()
            .map(|(s, _)| *s)
            .collect();
        seqs.sort_unstable();
        seqs
    }
}

fn with(mut seqs: Vec<u64>, seq: u64) -> Vec<u64> {
    seqs.push(seq);
    seqs.dedup();
    seqs
}

/// `the start, move 3 g1-f3 (event 9), move 5 g1-f3 (event 17)`.
fn occurrence_list(seen: &[&Occurrence]) -> String {
    let parts: Vec<String> = seen
        .iter()
        .map(|o| match (o.seq, o.played) {
            (0, _) | (_, None) => "the start".to_string(),
            (s, Some(played)) => format!("{played} (event {s})"),
        })
        .collect();
    parts.join(", ")
}

fn dead_position(seq: u64, pos: &Position) -> Ruling {
    let text = format!(
        "no hidden piece is left and the material ({}) cannot mate by any series of legal \
         moves: a dead position is a draw (chess_gjq 6.1)",
        pos.to_fen()
    );
    Ruling::draw(
        seq,
        RulingKind::InsufficientMaterial,
        Article::ChessGjq("6.1"),
        text,
    )
}

fn dead_position_rejected(seq: u64, side: Side, pos: &Position) -> Ruling {
    let why = match pos.hidden_count() {
        0 => "the material left can still mate".to_string(),
        n => format!(
            "{n} hidden piece(s) are still on the board ({}), and a hidden piece may be \
             anything",
            hidden_squares(pos)
        ),
    };
    let text = format!(
        "{} claimed a dead position at event {seq} (position {}), but {why} (chess_gjq 6.1)",
        name(side),
        pos.to_fen()
    );
    rejected(seq, side, Article::ChessGjq("6.1"), text)
}

fn rejected(seq: u64, side: Side, rule: Article, text: String) -> Ruling {
    Ruling::notice(seq, RulingKind::ClaimRejected, Some(side), rule, text)
}

fn squares(pos: &Position) -> impl Iterator<Item = Square> + '_ {
    (0..64)
        .filter_map(Square::from_index)
        .filter(|s| pos.piece_at(*s).is_some())
}

fn hidden_squares(pos: &Position) -> String {
    let hidden: Vec<String> = squares(pos)
        .filter(|s| pos.piece_at(*s).is_some_and(|p| p.role.is_none()))
        .map(|s| s.to_string())
        .collect();
    hidden.join(" ")
}
