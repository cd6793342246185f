//! The xiangqi table: moves checked against the movement rules (CXA chapters 1-3), and the
//! game ends they cause (xiangqi 3.1 checkmate, 3.2 stalemate, 4.1 illegal move).

use crate::event::{Event, EventKind, Header, Side};
use crate::games::Variant;
use crate::games::xiangqi::{Color, Illegal, Move, Position, Square, Status};

use super::{Ruling, RulingKind, SetupError};

/// The xiangqi part of a referee: the position and the moves that led to it.
#[derive(Clone, Debug)]
pub struct XiangqiTable {
    position: Position,
}

impl XiangqiTable {
    pub fn new(header: &Header) -> Result<XiangqiTable, SetupError> {
        let position = match &header.start {
            None => Position::startpos(),
            Some(fen) => Position::from_fen(fen).map_err(|e| SetupError::BadStart {
                variant: Variant::Xiangqi,
                fen: fen.clone(),
                reason: e.to_string(),
            })?,
        };
        Ok(XiangqiTable { position })
    }

    pub fn fen(&self) -> String {
        self.position.to_fen()
    }

    pub fn side_to_move(&self) -> Side {
        side_of(self.position.side_to_move())
    }

    pub fn apply(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        match &event.kind {
            EventKind::Move { from, to, .. } => {
                let (Some(from), Some(to)) = (from.xiangqi(), to.xiangqi()) else {
                    return Vec::new();
                };
                self.on_move(seq, event.side, from, to)
            }
            _ => Vec::new(),
        }
    }

    fn on_move(&mut self, seq: u64, side: Side, from: Square, to: Square) -> Vec<Ruling> {
        let played = format!("{}-{}", from, to);
        if self.position.piece_at(from).is_none() {
            return vec![self.empty_square(seq, side, from, &played)];
        }
        let to_move = self.side_to_move();
        if side != to_move {
            return vec![self.out_of_turn(seq, side, &played)];
        }
        match self.position.check_move(from, to) {
            Ok(mv) => self.play(seq, side, mv),
            Err(Illegal::EmptySquare { .. }) => vec![self.empty_square(seq, side, from, &played)],
            Err(why) => vec![self.illegal(seq, side, &played, &why)],
        }
    }

    fn play(&mut self, seq: u64, side: Side, mv: Move) -> Vec<Ruling> {
        self.position.play(mv);
        match self.position.status() {
            Status::Ongoing => Vec::new(),
            Status::Checkmate => vec![self.checkmate(seq, side, mv)],
            Status::Stalemate => vec![self.stalemate(seq, side, mv)],
        }
    }

    /// A move number as the scoresheet counts it (one move = red's and black's).
    fn move_number(&self, side: Side) -> String {
        let n = self.position.fullmove_number();
        match side {
            Side::Second => format!("move {n}..."),
            _ => format!("move {n}"),
        }
    }

    fn empty_square(&self, seq: u64, side: Side, from: Square, played: &str) -> Ruling {
        let text = format!(
            "{} reported the move {played} at event {seq}, but there is no piece on {from} in \
             the position {}: the log and the board disagree and the arbiter must look",
            name(side),
            self.fen()
        );
        Ruling::notice(
            seq,
            RulingKind::InvalidEvent,
            Some(side),
            "xiangqi 1.2",
            text,
        )
    }

    fn out_of_turn(&self, seq: u64, side: Side, played: &str) -> Ruling {
        let text = format!(
            "{} played {played} at event {seq}, but it was {}'s turn ({}): a move out of turn \
             is against the rules and loses (xiangqi 4.1)",
            name(side),
            name(side.opponent()),
            self.move_number(side.opponent())
        );
        Ruling::loss(seq, RulingKind::IllegalMove, side, "xiangqi 4.1", text)
    }

    fn illegal(&self, seq: u64, side: Side, played: &str, why: &Illegal) -> Ruling {
        let text = format!(
            "{} ({}) played {played} at event {seq}: {why}. A move against the movement rules \
             loses (xiangqi 4.1)",
            name(side),
            self.move_number(side)
        );
        Ruling::loss(seq, RulingKind::IllegalMove, side, "xiangqi 4.1", text)
    }

    fn checkmate(&self, seq: u64, winner: Side, mv: Move) -> Ruling {
        let loser = winner.opponent();
        let checkers: Vec<String> = self
            .position
            .checkers()
            .into_iter()
            .map(|sq| self.describe(sq))
            .collect();
        let text = format!(
            "after {}'s move {}-{} at event {seq}, {}'s general is in check from {} and {} has \
             no legal move: checkmate, {} loses (xiangqi 3.1)",
            name(winner),
            mv.from,
            mv.to,
            name(loser),
            checkers.join(" and "),
            name(loser),
            name(loser)
        );
        Ruling::loss(seq, RulingKind::Checkmate, loser, "xiangqi 3.1", text)
    }

    fn stalemate(&self, seq: u64, winner: Side, mv: Move) -> Ruling {
        let loser = winner.opponent();
        let text = format!(
            "after {}'s move {}-{} at event {seq}, {} is not in check but has no legal move \
             (position {}): stalemate (困毙) loses in xiangqi (xiangqi 3.2)",
            name(winner),
            mv.from,
            mv.to,
            name(loser),
            self.fen()
        );
        Ruling::loss(seq, RulingKind::Stalemate, loser, "xiangqi 3.2", text)
    }

    /// "red's chariot on h9".
    fn describe(&self, sq: Square) -> String {
        match self.position.piece_at(sq) {
            Some(p) => format!("{}'s {} on {sq}", p.color.name(), p.kind.name()),
            None => sq.to_string(),
        }
    }
}

fn side_of(color: Color) -> Side {
    match color {
        Color::Red => Side::First,
        Color::Black => Side::Second,
    }
}

fn name(side: Side) -> &'static str {
    side.name(Variant::Xiangqi)
}
