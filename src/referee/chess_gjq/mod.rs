//! The chess_gjq table: moves checked against the movement rules, the reveal that completes
//! a hidden piece's move (chess_gjq 3.1.5, 5.5, 8.6), and the game ends they cause (5.1,
//! 5.2, 5.6, 6.1-6.5).

mod draws;
mod notation;
mod policy;
mod reveal;
mod shuffle;
mod time;

use crate::event::{ClaimKind, EventKind, Header, Side};
use crate::games::Variant;
use crate::games::chess_gjq::{Illegal, Move, Position, Role, Square, Status};
use crate::referee::Article;
use crate::referee::table::{self, Kind, Positioned};

use self::draws::DrawCounters;
use self::notation::Played;
use self::reveal::PendingMove;
use self::shuffle::Shuffle;
use super::{Ruling, RulingKind, SetupError};

/// The chess_gjq part of a referee: the position, the move awaiting its reveal, and the
/// named counters of the draw rules.
#[derive(Clone, Debug)]
pub struct ChessGjqTable {
    position: Position,
    /// The hidden piece's move that waits for its reveal (chess_gjq 3.1.5).
    pending: Option<PendingMove>,
    draws: DrawCounters,
    /// The commitment to the secret set-up and what the reveals said (chess_gjq 3.1.4);
    /// boxed, as most games have none, to keep the table the size of the others.
    shuffle: Box<Shuffle>,
}

impl ChessGjqTable {
    pub fn new(header: &Header) -> Result<ChessGjqTable, SetupError> {
        let position = super::start_position::<Position>(header)?;
        let draws = DrawCounters::new(&position);
        Ok(ChessGjqTable {
            shuffle: Box::new(Shuffle::new(&position)),
            position,
            pending: None,
            draws,
        })
    }

    /// How the scoresheet of chess_gjq 9.3 writes `event` in the current position: a move
    /// (`暗马g1-f3`, `后d1-d5`) or what a reveal adds to it (`后`); `None` for other events and
    /// for moves the rules do not allow.
    pub fn describe(&self, played: &table::Played<Square>) -> Option<String> {
        match &played.kind {
            Kind::Move {
                from,
                to,
                promotion,
                ..
            } => {
                let promotion = promotion.and_then(Role::from_char);
                let mv = self.position.check_move(*from, *to, promotion).ok()?;
                Some(notation::chinese(&self.position, mv))
            }
            Kind::Reveal {
                piece, promotion, ..
            } => Some(notation::chinese_reveal(
                Role::from_char(*piece)?,
                promotion.and_then(Role::from_char),
            )),
            _ => None,
        }
    }

    pub fn apply(&mut self, seq: u64, played: &table::Played<Square>) -> Vec<Ruling> {
        let witness = self.witness(seq, played);
        let mut out = self.judge(seq, played);
        out.extend(self.witnessed(witness));
        out
    }

    fn judge(&mut self, seq: u64, played: &table::Played<Square>) -> Vec<Ruling> {
        let side = played.side;
        match &played.kind {
            Kind::Move {
                from,
                to,
                promotion,
                ..
            } => self.on_move(seq, side, *from, *to, *promotion),
            Kind::Reveal {
                square,
                piece,
                promotion,
            } => self.on_reveal(seq, side, *square, *piece, *promotion),
            Kind::Other(EventKind::Clock { .. }) => self.on_clock(seq, side),
            Kind::Other(EventKind::Claim { claim }) => self.on_claim(seq, side, *claim),
            _ => Vec::new(),
        }
    }

    fn on_move(
        &mut self,
        seq: u64,
        side: Side,
        from: Square,
        to: Square,
        promotion: Option<char>,
    ) -> Vec<Ruling> {
        // Only a ruling names the move as reported; most moves get none.
        let played = || format!("{from}-{to}");
        if let Some(overdue) = self.overdue_on_move(seq, side) {
            return vec![overdue];
        }
        if self.position.piece_at(from).is_none() {
            return vec![self.empty_square(seq, side, from, &played())];
        }
        if side != self.side_to_move() {
            return vec![self.out_of_turn(seq, side, &played())];
        }
        let promotion = promotion.and_then(Role::from_char);
        match self.position.check_move(from, to, promotion) {
            Ok(mv) => self.play(seq, side, mv),
            Err(Illegal::EmptySquare { .. }) => {
                vec![self.empty_square(seq, side, from, &played())]
            }
            Err(why) => vec![self.illegal(seq, side, &played(), &why)],
        }
    }

    fn play(&mut self, seq: u64, side: Side, mv: Move) -> Vec<Ruling> {
        let before = self.position.clone();
        let played = Played::new(&before, mv, side);
        self.position.play(mv);
        match self.position.pending_reveal() {
            Some(square) => {
                self.pending = Some(PendingMove::new(seq, side, square, before, played));
                Vec::new()
            }
            None => self.complete(seq, side, &before, played),
        }
    }

    /// A move is complete (after its reveal, if any): mate, stalemate, then the draw rules.
    fn complete(&mut self, seq: u64, side: Side, before: &Position, played: Played) -> Vec<Ruling> {
        let gives_check = self.position.in_check();
        self.draws
            .record(seq, played, before, &self.position, gives_check);
        match self.position.status() {
            Status::Checkmate => return vec![self.checkmate(seq, side, &played)],
            Status::Stalemate => return vec![self.stalemate(seq, &played)],
            Status::Ongoing => {}
        }
        self.draws
            .automatic(seq, &self.position)
            .into_iter()
            .collect()
    }

    fn on_claim(&mut self, seq: u64, side: Side, claim: ClaimKind) -> Vec<Ruling> {
        vec![self.draws.claim(seq, side, claim, &self.position)]
    }

    /// A move number as the scoresheet counts it: `move 12` for white, `move 12...` for black.
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
            Article::ChessGjq("8.1"),
            text,
        )
    }

    fn out_of_turn(&self, seq: u64, side: Side, played: &str) -> Ruling {
        let text = format!(
            "{} played {played} at event {seq}, but it was {}'s turn ({}): one moves only on \
             one's own turn (chess_gjq 8.1), and any other illegal move loses (chess_gjq 5.6)",
            name(side),
            name(side.opponent()),
            self.move_number(side.opponent())
        );
        Ruling::loss(
            seq,
            RulingKind::IllegalMove,
            side,
            Article::ChessGjq("5.6"),
            text,
        )
    }

    fn illegal(&self, seq: u64, side: Side, played: &str, why: &Illegal) -> Ruling {
        let article = why.article();
        let consequence = match article {
            "chess_gjq 5.2" => "moving into check or leaving one's king in check loses",
            "chess_gjq 8.3" => {
                "a hidden piece moving against the movement rules loses, whether or not it \
                 was turned up"
            }
            _ => "an illegal move loses",
        };
        let text = format!(
            "{} ({}) played {played} at event {seq}: {why}; {consequence} ({article})",
            name(side),
            self.move_number(side)
        );
        Ruling::loss(
            seq,
            RulingKind::IllegalMove,
            side,
            Article::Game(article),
            text,
        )
    }

    fn checkmate(&self, seq: u64, winner: Side, played: &Played) -> Ruling {
        let loser = winner.opponent();
        let text = format!(
            "after {}'s {played} at event {seq}, {}'s king is in check and {} has no legal \
             move (position {}): checkmate, {} loses (chess_gjq 5.1)",
            name(winner),
            name(loser),
            name(loser),
            self.fen(),
            name(loser)
        );
        Ruling::loss(
            seq,
            RulingKind::Checkmate,
            loser,
            Article::ChessGjq("5.1"),
            text,
        )
    }

    fn stalemate(&self, seq: u64, played: &Played) -> Ruling {
        let stuck = self.side_to_move();
        let text = format!(
            "after {played} at event {seq}, {} is not in check but has no legal move \
             (position {}): stalemate is a draw (chess_gjq 6.3)",
            name(stuck),
            self.fen()
        );
        Ruling::draw(seq, RulingKind::Stalemate, Article::ChessGjq("6.3"), text)
    }
}

fn name(side: Side) -> &'static str {
    side.name(Variant::ChessGjq)
}
