//! The draughts table: moves resolved to legal capture routes (draughts 5-6), irregular moves
//! left to the opponent's decision (7.4, 7.7), and the game ends of article 12.

mod correction;
mod draw_counts;
mod policy;
mod repetition;
mod time;
mod touch;

use crate::event::{ClaimKind, Header, Side};
use crate::games::Variant;
use crate::games::draughts::{Color, Irregularity, Move, Position, Record, Resolution, Square};
use crate::referee::Article;
use crate::referee::table::{Kind, Played, Positioned};

use self::correction::Pending;
use self::draw_counts::DrawCounts;
use self::repetition::Positions;
use self::touch::Touch;
use super::{Effect, Reason, Ruling, RulingKind, SetupError};

/// The game as it stands: the position, where each position occurred, and the draw counters.
#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    /// The positions that may still recur, and after which moves they stood.
    seen: Positions,
    counts: DrawCounts,
    /// The start and the moves that stand, in order: a move voided by a correction leaves
    /// with the rest of the state it is restored from.
    played: Record,
}

/// The draughts part of a referee.
#[derive(Clone, Debug)]
pub struct DraughtsTable {
    game: Game,
    pending: Option<Pending>,
    /// 5.11: the movable piece the side to move touched, until its move; and the last touch
    /// a move was judged against, re-armed if that move is voided by a demand for correction.
    touch: Option<Touch>,
    touch_used: Option<Touch>,
}

impl DraughtsTable {
    pub fn new(header: &Header) -> Result<DraughtsTable, SetupError> {
        let position = super::start_position::<Position>(header)?;
        let game = Game {
            seen: Positions::new(&position),
            counts: DrawCounts::at_start(&position),
            played: Record::new(position.clone()),
            position,
        };
        Ok(DraughtsTable {
            game,
            pending: None,
            touch: None,
            touch_used: None,
        })
    }

    /// The start position and the moves that stand on the board, in order.
    pub fn record(&self) -> &Record {
        &self.game.played
    }

    /// An event judged as it stands, whatever was touched before it.
    fn judge(&mut self, seq: u64, played: &Played<Square>) -> Vec<Ruling> {
        if let Kind::Move {
            from, to, captures, ..
        } = &played.kind
        {
            return self.on_move(seq, played.side, *from, *to, captures.as_deref());
        }
        match played.claim() {
            Some(claim) => self.on_claim(seq, played.side, claim),
            None => Vec::new(),
        }
    }

    fn on_move(
        &mut self,
        seq: u64,
        side: Side,
        from: Square,
        to: Square,
        captures: Option<&[Square]>,
    ) -> Vec<Ruling> {
        let Some(color) = color_of(side) else {
            return Vec::new();
        };
        // Playing on accepts the opponent's irregular move (7.7).
        if self.pending.as_ref().is_some_and(|p| p.side != side) {
            self.pending = None;
        }
        let in_turn = color == self.game.position.side_to_move();
        let position = self.game.position.with_side_to_move(color);
        match position.resolve(from, to, captures) {
            Resolution::Legal(mv) if in_turn => self.play(seq, mv),
            Resolution::Legal(mv) => {
                let why = format!(
                    "it was {}'s turn, and two moves in a row are irregular",
                    color.opponent().name()
                );
                vec![self.irregular(seq, side, mv, &why, Article::Draughts("7.4"))]
            }
            Resolution::Irregular { played, why } => {
                let text = self.irregular_why(in_turn, color, &why);
                vec![self.irregular(seq, side, played, &text, Article::Game(why.article()))]
            }
            Resolution::Ambiguous(routes) => vec![self.ambiguous(seq, side, from, to, &routes)],
            Resolution::Impossible(why) => {
                let sep = if captures.is_some_and(|c| !c.is_empty()) {
                    'x'
                } else {
                    '-'
                };
                let text = format!(
                    "{} reported {from}{sep}{to} at event {seq}, but {why} in the position {}: \
                     the log and the board disagree and the arbiter must look",
                    name(side),
                    self.fen()
                );
                vec![Ruling::notice(
                    seq,
                    RulingKind::InvalidEvent,
                    Some(side),
                    Article::Draughts("5.4"),
                    text,
                )]
            }
        }
    }

    fn irregular_why(&self, in_turn: bool, color: Color, why: &Irregularity) -> String {
        if in_turn {
            why.to_string()
        } else {
            format!("it was {}'s turn; besides, {why}", color.opponent().name())
        }
    }

    /// Plays an irregular move as it stands, keeping the game before it for a correction.
    fn irregular(&mut self, seq: u64, side: Side, mv: Move, why: &str, rule: Article) -> Ruling {
        let before = Box::new(self.game.clone());
        let played = mv.pdn_full();
        let text = format!(
            "{} played {played} at event {seq}: {why} ({rule}). {} may demand correction \
             (claim illegal_move) or accept the move by playing on (draughts 7.4, 7.7)",
            name(side),
            name(side.opponent())
        );
        self.advance(seq, &mv);
        self.pending = Some(Pending {
            side,
            seq,
            played,
            before,
        });
        Ruling {
            at: seq,
            kind: RulingKind::IllegalMove,
            side: Some(side),
            effect: Effect::CorrectionRequired,
            result: None,
            article: rule,
            text,
            evidence: vec![seq],
            reason: Reason::Plain,
            event: None,
        }
    }

    fn ambiguous(&self, seq: u64, side: Side, from: Square, to: Square, routes: &[Move]) -> Ruling {
        let fits: Vec<String> = routes
            .iter()
            .map(|mv| {
                let taken: Vec<String> = mv.captured_set().iter().map(Square::to_string).collect();
                format!("{} (taking {})", mv.pdn_full(), taken.join(", "))
            })
            .collect();
        let text = format!(
            "{} reported {from}x{to} at event {seq} without the captured pieces, and {} legal \
             routes fit: {}; the board must say which pieces were taken (draughts 6.14)",
            name(side),
            routes.len(),
            fits.join("; ")
        );
        Ruling::notice(
            seq,
            RulingKind::InvalidEvent,
            Some(side),
            Article::Draughts("6.14"),
            text,
        )
    }

    /// Plays a legal move and looks for an end of the game.
    fn play(&mut self, seq: u64, mv: Move) -> Vec<Ruling> {
        self.advance(seq, &mv);
        self.game_end(seq, &mv).into_iter().collect()
    }

    /// Puts `mv` on the board and updates the repetition record and the counters.
    fn advance(&mut self, seq: u64, mv: &Move) {
        let by_king = self
            .game
            .position
            .piece_at(mv.from())
            .is_some_and(|p| p.is_king());
        let before = self.game.position.clone();
        self.game.position.play(mv);
        let game = &mut self.game;
        game.seen.record(seq, &before, &game.position);
        game.counts
            .record(seq, mv, by_king, &before, &game.position);
        game.played.push(mv);
    }

    fn game_end(&self, seq: u64, mv: &Move) -> Option<Ruling> {
        self.no_moves(seq, mv)
            .or_else(|| self.repetition(seq))
            .or_else(|| self.endgame_count(seq))
            .or_else(|| self.kings_only(seq))
    }

    /// 12.2: a player with no pieces, or none that can move, loses.
    fn no_moves(&self, seq: u64, mv: &Move) -> Option<Ruling> {
        let pos = &self.game.position;
        let loser = pos.side_to_move();
        if pos.has_legal_move() {
            return None;
        }
        let why = if pos.pieces().any(|(_, p)| p.color == loser) {
            "has no legal move"
        } else {
            "has no pieces left"
        };
        let text = format!(
            "after {}'s {} at event {seq}, {} {why} and loses (draughts 12.2)",
            loser.opponent().name(),
            mv.pdn_full(),
            loser.name()
        );
        Some(Ruling::loss(
            seq,
            RulingKind::NoMoves,
            side_of(loser),
            Article::Draughts("12.2"),
            text,
        ))
    }

    /// 12.3.1: the same position for the third time with the same player to move.
    fn repetition(&self, seq: u64) -> Option<Ruling> {
        if self.game.seen.count(&self.game.position) < 3 {
            return None;
        }
        let seqs = self.game.seen.seqs(&self.game.position);
        let text = format!(
            "the position {} stood {}: the third time with {} to move, a draw (draughts 12.3.1)",
            self.fen(),
            occurrences(&seqs),
            self.game.position.side_to_move().name()
        );
        let evidence = seqs.iter().copied().filter(|&s| s > 0).collect();
        Some(
            Ruling::draw(
                seq,
                RulingKind::Repetition,
                Article::Draughts("12.3.1"),
                text,
            )
            .with_evidence(evidence),
        )
    }

    /// 12.3.3 and 12.3.4: the endgame counts.
    fn endgame_count(&self, seq: u64) -> Option<Ruling> {
        let count = self.game.counts.endgame.as_ref().filter(|c| c.expired())?;
        let text = format!(
            "{} each side has made {} moves without a win, the last at event {seq}: a draw \
             ({})",
            count.origin(),
            count.class.limit(),
            count.class.article()
        );
        let evidence = [count.since, seq].into_iter().filter(|&s| s > 0).collect();
        Some(
            Ruling::draw(seq, RulingKind::EndgameCount, count.class.article(), text)
                .with_evidence(evidence),
        )
    }

    /// 12.3.2: 25 moves by each player with only kings moved and no capture.
    fn kings_only(&self, seq: u64) -> Option<Ruling> {
        let run = self
            .game
            .counts
            .kings_only
            .as_ref()
            .filter(|r| r.expired())?;
        let text = format!(
            "from event {} to event {seq} each side has made 25 moves with only kings, no man \
             moved and nothing taken: a draw (draughts 12.3.2)",
            run.since
        );
        Some(
            Ruling::draw(
                seq,
                RulingKind::MoveLimit,
                Article::Draughts("12.3.2"),
                text,
            )
            .with_evidence(vec![run.since, seq]),
        )
    }

    fn on_claim(&mut self, seq: u64, side: Side, claim: ClaimKind) -> Vec<Ruling> {
        match claim {
            ClaimKind::IllegalMove => self.demand_correction(seq, side),
            ClaimKind::Repetition => vec![self.reject_repetition(seq, side)],
            ClaimKind::EndgameCount => vec![self.reject_endgame_count(seq, side)],
            ClaimKind::MoveLimit => vec![self.reject_kings_only(seq, side)],
            ClaimKind::Flag => Vec::new(),
            other => vec![reject(
                seq,
                side,
                Article::Draughts("12.3"),
                format!("{other} is not a draw rule of international draughts"),
            )],
        }
    }

    /// The irregular move awaiting the opponent's decision, in words.
    pub(super) fn pending_correction(&self) -> Option<String> {
        self.pending.as_ref().map(|p| {
            format!(
                "{}'s irregular move {} at event {} awaits {}'s decision: demand correction \
                 (claim illegal_move) or accept it by playing on (draughts 7.4, 7.7)",
                name(p.side),
                p.played,
                p.seq,
                name(p.side.opponent())
            )
        })
    }

    /// 7.4: the opponent demands correction; the irregular move is void.
    fn demand_correction(&mut self, seq: u64, side: Side) -> Vec<Ruling> {
        match self.pending.take() {
            Some(p) if p.side == side.opponent() => {
                self.game = *p.before;
                Vec::new()
            }
            other => {
                self.pending = other;
                vec![reject(
                    seq,
                    side,
                    Article::Draughts("7.4"),
                    format!(
                        "there is no irregular move of {} awaiting {}'s decision",
                        name(side.opponent()),
                        name(side)
                    ),
                )]
            }
        }
    }

    fn reject_repetition(&self, seq: u64, side: Side) -> Ruling {
        let seqs = self.game.seen.seqs(&self.game.position);
        let why = format!(
            "the position {} has stood {} ({}), not three times",
            self.fen(),
            times(seqs.len()),
            occurrences(&seqs)
        );
        reject(seq, side, Article::Draughts("12.3.1"), why)
    }

    fn reject_endgame_count(&self, seq: u64, side: Side) -> Ruling {
        match &self.game.counts.endgame {
            Some(count) => {
                let why = format!(
                    "{} {} moves have been made, each side may make {} ({})",
                    count.origin(),
                    count.plies,
                    count.class.limit(),
                    count.class.article()
                );
                reject(seq, side, count.class.article(), why)
            }
            None => reject(
                seq,
                side,
                Article::Draughts("12.3.3"),
                format!(
                    "the material ({}) is not one of the endgames of 12.3.3 or 12.3.4",
                    draw_counts::material(&self.game.position)
                ),
            ),
        }
    }

    fn reject_kings_only(&self, seq: u64, side: Side) -> Ruling {
        let why = match &self.game.counts.kings_only {
            Some(run) => format!(
                "only {} moves with kings alone and no capture since event {}; 25 each are needed",
                run.plies, run.since
            ),
            None => "the last move was not a king's move without a capture".to_string(),
        };
        reject(seq, side, Article::Draughts("12.3.2"), why)
    }
}

/// A claim the log does not bear out.
fn reject(seq: u64, side: Side, rule: Article, why: String) -> Ruling {
    let text = format!("{}'s claim at event {seq} is rejected: {why}", name(side));
    Ruling::notice(seq, RulingKind::ClaimRejected, Some(side), rule, text)
}

/// "at the start, after events 5 and 9".
fn occurrences(seqs: &[u64]) -> String {
    let mut parts = Vec::new();
    if seqs.first() == Some(&0) {
        parts.push("at the start".to_string());
    }
    let events: Vec<String> = seqs
        .iter()
        .filter(|&&s| s > 0)
        .map(u64::to_string)
        .collect();
    match events.len() {
        0 => {}
        1 => parts.push(format!("after event {}", events[0])),
        _ => parts.push(format!("after events {}", events.join(", "))),
    }
    parts.join(", ")
}

fn times(n: usize) -> String {
    match n {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    }
}

fn side_of(color: Color) -> Side {
    match color {
        Color::White => Side::First,
        Color::Black => Side::Second,
    }
}

fn color_of(side: Side) -> Option<Color> {
    match side {
        Side::First => Some(Color::White),
        Side::Second => Some(Color::Black),
        Side::Arbiter | Side::Board => None,
    }
}

fn name(side: Side) -> &'static str {
    side.name(Variant::Draughts)
}
