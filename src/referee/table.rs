//! The game-specific part of the referee: one table per game, each owning its rule book's
//! policy (foul limit, draw offers, touch-move, time) and the articles it cites, so that the
//! shared modules apply a policy without asking which game it is. Dispatch is by the
//! [`Table`] enum, not a `Box<dyn>`; its `impl` below is the one place that names every game.

use crate::event::{ClaimKind, Event, EventKind, GameSquare, Header, Side};
use crate::games::{Game, Variant};

use crate::games::sensor::{Placement, Sensed};

use super::article::Article;
use super::board::search::{self, Ask, BoardRules, Reading};
use super::chess_gjq::ChessGjqTable;
use super::draughts::DraughtsTable;
use super::offers::OfferRule;
use super::renju::RenjuTable;
use super::touch::{TouchRule, View};
use super::xiangqi::XiangqiTable;
use super::{Ruling, SetupError};

/// What the shared modules apply of a game's rule book.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    /// The fouls that lose when the header sets no `foul_limit`; `None`: fouls never lose.
    pub foul_limit: Option<u32>,
    /// The article of the loss at the foul limit.
    pub foul_limit_article: Article,
    /// The article by which a player who resigns loses.
    pub resignation: Article,
    /// The article of time forfeits, flag claims and per-move limits.
    pub clock: Article,
    /// When a draw may be offered, and what a forbidden offer costs.
    pub offers: OfferRule,
    /// Touch-move as the shared module judges it; `None` where the table judges touches
    /// itself (draughts 5.11 makes a breach an irregularity the opponent may correct).
    pub touch: Option<TouchRule>,
}

/// A flag's fall the rules turn into a draw: the article, and why in words.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeDraw {
    pub article: Article,
    pub why: String,
}

/// The position a table plays on, as the games' own trait ([`Game`]) sees it: what reads
/// the same in every game (its FEN, whose turn it is) is written once, here.
pub trait Positioned {
    type Position: Game;
    fn position(&self) -> &Self::Position;

    /// The current position as FEN.
    fn fen(&self) -> String {
        self.position().fen()
    }

    fn side_to_move(&self) -> Side {
        self.position().to_move().into()
    }
}

/// An event as a table receives it: who and when, and what happened with its squares read
/// once as the game's own (`S`), so no table converts a square or meets another game's.
#[derive(Clone, Debug, PartialEq)]
pub struct Played<'a, S> {
    pub side: Side,
    pub kind: Kind<'a, S>,
}

/// What happened, with the game's own squares.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind<'a, S> {
    Touch {
        square: S,
        adjust: bool,
    },
    Move {
        from: S,
        to: S,
        promotion: Option<char>,
        captures: Option<Vec<S>>,
    },
    Place {
        to: S,
    },
    Reveal {
        square: S,
        piece: char,
        promotion: Option<char>,
    },
    /// Renju under an opening rule: the alternative fifth stones.
    Offer {
        points: Vec<S>,
    },
    /// Renju under an opening rule: the offer chosen.
    Choose {
        to: S,
    },
    /// Every other event: none names a square.
    Other(&'a EventKind),
}

impl<'a, S: GameSquare> Played<'a, S> {
    /// `event` with its squares read as the game's; `None` if one is another game's, which
    /// the event checks (`event::check`) refuse before any event reaches a referee.
    pub fn read(event: &'a Event) -> Option<Played<'a, S>> {
        let kind = match &event.kind {
            EventKind::Touch { square, adjust } => Kind::Touch {
                square: S::of(*square)?,
                adjust: *adjust,
            },
            EventKind::Move {
                from,
                to,
                promotion,
                captures,
            } => Kind::Move {
                from: S::of(*from)?,
                to: S::of(*to)?,
                promotion: *promotion,
                captures: match captures {
                    Some(c) => Some(c.iter().map(|s| S::of(*s)).collect::<Option<_>>()?),
                    None => None,
                },
            },
            EventKind::Place { to } => Kind::Place { to: S::of(*to)? },
            EventKind::Reveal {
                square,
                piece,
                promotion,
            } => Kind::Reveal {
                square: S::of(*square)?,
                piece: *piece,
                promotion: *promotion,
            },
            EventKind::Offer { points } => Kind::Offer {
                points: points.iter().map(|s| S::of(*s)).collect::<Option<_>>()?,
            },
            EventKind::Choose { to } => Kind::Choose { to: S::of(*to)? },
            other => Kind::Other(other),
        };
        Some(Played {
            side: event.side,
            kind,
        })
    }

    /// The claim, if this event is one.
    pub fn claim(&self) -> Option<ClaimKind> {
        match self.kind {
            Kind::Other(EventKind::Claim { claim }) => Some(*claim),
            _ => None,
        }
    }
}

/// One game's rules as the referee applies them. No method has a default: a new game
/// states each part of its policy.
pub trait GameTable {
    /// The game's own square, in which the table receives events.
    type Square: GameSquare;
    /// The rule book's policy for the shared modules.
    fn policy(&self) -> Policy;
    /// How a scoresheet writes the event before it is applied (see
    /// [`super::Referee::describe`]).
    fn describe(&self, played: &Played<Self::Square>) -> Option<String>;
    /// The game's own judgment of an event, after the shared rules.
    fn apply(&mut self, seq: u64, played: &Played<Self::Square>) -> Vec<Ruling>;
    /// An event judged even after the game's end, and then by the table alone (chess_gjq
    /// 3.1.4: the secret set-up is opened after the game); `None` for any other event.
    fn after_end(&mut self, seq: u64, played: &Played<Self::Square>) -> Option<Vec<Ruling>>;
    /// What the shared touch-move rule needs of the position, where [`Policy::touch`] is set.
    fn touch_view(&self) -> Option<View>;
    /// What stands open and ends the game only on a later event, in words.
    fn open_conditions(&self) -> Vec<String>;
    /// Why `flagged`'s flag fall does not lose, if the rules say so.
    fn time_draw(&self, flagged: Side, header: &Header) -> Option<TimeDraw>;
    /// A claim judged with the claimant's time left by the referee's clock (`left`, `None`
    /// without a time control), instead of by [`GameTable::apply`]; `None` for other claims.
    fn timed_claim(
        &self,
        seq: u64,
        side: Side,
        claim: ClaimKind,
        left: Option<i64>,
    ) -> Option<Ruling>;
}

/// A renju opening rule's state as the console shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningView {
    /// Whether the opening is still under way: who holds which colour may still change.
    pub tentative: bool,
    /// The fifth-move offers standing while white chooses, as squares (`g7`).
    pub offers: Vec<String>,
}

/// The game-specific part of the referee, one per variant (an enum, not a `Box<dyn>`).
#[derive(Clone, Debug)]
pub enum Table {
    ChessGjq(ChessGjqTable),
    Xiangqi(XiangqiTable),
    Draughts(DraughtsTable),
    Renju(RenjuTable),
}

/// Forwards a call to the table of whichever game this is.
macro_rules! forward {
    ($table:expr, $t:ident => $call:expr) => {
        match $table {
            Table::ChessGjq($t) => $call,
            Table::Xiangqi($t) => $call,
            Table::Draughts($t) => $call,
            Table::Renju($t) => $call,
        }
    };
}

impl Table {
    /// The table of the game the header names, at its start position.
    pub fn new(header: &Header) -> Result<Table, SetupError> {
        Ok(match header.variant {
            Variant::ChessGjq => Table::ChessGjq(ChessGjqTable::new(header)?),
            Variant::Xiangqi => Table::Xiangqi(XiangqiTable::new(header)?),
            Variant::Draughts => Table::Draughts(DraughtsTable::new(header)?),
            Variant::Renju => Table::Renju(RenjuTable::new(header)?),
        })
    }

    /// The current position as FEN.
    pub fn fen(&self) -> String {
        forward!(self, t => Positioned::fen(t))
    }

    pub fn side_to_move(&self) -> Side {
        forward!(self, t => Positioned::side_to_move(t))
    }

    /// What the game's board shows and how its squares are named (electronic boards).
    pub fn board_rules(&self) -> BoardRules {
        forward!(self, t => board_rules_of(t))
    }

    /// What a board shows of the current position.
    pub fn board_placement(&self) -> Placement {
        forward!(self, t => t.position().placement())
    }

    /// Reads a board's placement against the current position (see [`search::read`]).
    pub fn board_read(&self, shown: &Placement, ask: Ask<'_>) -> Reading {
        forward!(self, t => search::read(t.position(), shown, ask))
    }

    /// The event square of a placement's cell.
    pub fn board_square(&self, cell: usize) -> crate::event::Square {
        forward!(self, t => square_of(t, cell))
    }

    /// Renju under an opening rule: where the opening stands; `None` in every other game.
    pub fn renju_opening(&self) -> Option<OpeningView> {
        match self {
            Table::Renju(t) => t.opening_view(),
            Table::ChessGjq(_) | Table::Xiangqi(_) | Table::Draughts(_) => None,
        }
    }

    /// Renju under an opening rule: whether the players hold the other colours than they
    /// began with (an odd number of swaps); `false` in every other game.
    pub fn players_swapped(&self) -> bool {
        match self {
            Table::Renju(t) => t.players_swapped(),
            Table::ChessGjq(_) | Table::Xiangqi(_) | Table::Draughts(_) => false,
        }
    }

    /// Draughts: the start position and the moves that stand; `None` for the other games.
    pub fn draughts_record(&self) -> Option<&crate::games::draughts::Record> {
        match self {
            Table::Draughts(t) => Some(t.record()),
            Table::ChessGjq(_) | Table::Xiangqi(_) | Table::Renju(_) => None,
        }
    }
}

/// Forwards an event to the table of whichever game this is, its squares read as that game's
/// (see [`Played::read`]); an event naming another game's square — which the event checks
/// refuse — is nothing to judge and gets `$none`.
macro_rules! forward_played {
    ($table:expr, $event:expr, $none:expr, ($t:ident, $p:ident) => $call:expr) => {
        forward!($table, $t => match Played::read($event) {
            Some($p) => $call,
            None => $none,
        })
    };
}

fn board_rules_of<T: Positioned>(_: &T) -> BoardRules
where
    T::Position: Sensed,
    <T::Position as Game>::Square: GameSquare,
{
    BoardRules::of::<T::Position>()
}

fn square_of<T: Positioned>(_: &T, cell: usize) -> crate::event::Square
where
    T::Position: Sensed,
    <T::Position as Game>::Square: GameSquare,
{
    <T::Position as Sensed>::square_of(cell).into()
}

// The tables' trait over events as the referee holds them: each call reaches one table.
impl Table {
    pub fn policy(&self) -> Policy {
        forward!(self, t => GameTable::policy(t))
    }

    /// How a scoresheet writes `event` before it is applied.
    pub fn describe(&self, event: &Event) -> Option<String> {
        forward_played!(self, event, None, (t, p) => GameTable::describe(t, &p))
    }

    pub fn apply(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        forward_played!(self, event, Vec::new(), (t, p) => GameTable::apply(t, seq, &p))
    }

    pub fn after_end(&mut self, seq: u64, event: &Event) -> Option<Vec<Ruling>> {
        forward_played!(self, event, None, (t, p) => GameTable::after_end(t, seq, &p))
    }

    pub fn touch_view(&self) -> Option<View> {
        forward!(self, t => GameTable::touch_view(t))
    }

    pub fn open_conditions(&self) -> Vec<String> {
        forward!(self, t => GameTable::open_conditions(t))
    }

    pub fn time_draw(&self, flagged: Side, header: &Header) -> Option<TimeDraw> {
        forward!(self, t => GameTable::time_draw(t, flagged, header))
    }

    pub fn timed_claim(
        &self,
        seq: u64,
        side: Side,
        claim: ClaimKind,
        left: Option<i64>,
    ) -> Option<Ruling> {
        forward!(self, t => GameTable::timed_claim(t, seq, side, claim, left))
    }
}
