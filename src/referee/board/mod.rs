//! Electronic boards (log format, "Electronic boards"): the referee derives the game's moves
//! and touches from the board's `board` reports, in the fold, so that replaying a log derives
//! the same moves from the same reports. The reports stay in the log exactly as they came;
//! nothing derived is stored.
//!
//! A report's placement is read at a **commit point** only: the moving side's clock press;
//! in a game without clock events, a placement that stood unchanged for `board_hold_ms`
//! (measured by the next event's `ts_ms`); or the next event of another type. What stood in
//! between (a piece in the hand, a slide, a capture in either order, a flicker) is not a move.
//! The watch here is the same for every game; reading a placement against the position is
//! [`search::read`], written once over the games' [`crate::games::sensor::Sensed`].

mod judge;
pub mod search;

use crate::games::Player;
use crate::games::sensor::Placement;

pub use self::search::{BoardRules, Reading};

/// `board_hold_ms` when the header sets none.
pub const DEFAULT_HOLD_MS: u64 = 1000;

/// A square empty for less than this, between two reports showing its piece, flickered: the
/// sensors missed the piece for a scan (DGT: a full scan takes 200-250 ms); it was not lifted.
pub const FLICKER_MS: u64 = 300;

/// The most report seqs a derived move names as its evidence: the last ones before it.
const MOST_EVIDENCE: usize = 32;

/// The latest report not yet committed.
#[derive(Clone, Debug)]
pub struct Pending {
    pub seq: u64,
    pub ts: Option<u64>,
    pub placement: Placement,
}

/// A piece of the side to move seen lifted since the last commit point.
#[derive(Clone, Debug)]
pub struct Lift {
    pub cell: usize,
    /// The report that showed its square empty.
    pub seq: u64,
    pub ts: Option<u64>,
    /// The report that showed it back, and when.
    pub back: Option<(u64, Option<u64>)>,
}

impl Lift {
    /// Whether the square stayed empty long enough to be a lift rather than a flicker.
    fn counts(&self) -> bool {
        match (self.ts, self.back) {
            (Some(from), Some((_, Some(to)))) => to.saturating_sub(from) >= FLICKER_MS,
            _ => true,
        }
    }
}

/// A mismatch read at a clock press, raised only if the board does not clear it within the
/// hold time ("a mismatch that the board clears by itself within the hold time is no
/// mismatch").
#[derive(Clone, Debug)]
pub struct Provisional {
    pub seq: u64,
    pub ts: Option<u64>,
    /// Why nothing explains the placement, in words.
    pub what: String,
    pub evidence: Vec<u64>,
    /// The player whose press it was.
    pub presser: Option<Player>,
}

/// A mismatch that stands: when it was raised, and why, in words.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub seq: u64,
    pub what: String,
    /// The player whose clock press read it: in a clocked game the board is read again at
    /// each report until it comes back (a press is not repeated), and only a reading that
    /// ends with that player's move clears it.
    pub presser: Option<Player>,
}

/// What the referee keeps of a game's board between its reports.
#[derive(Clone, Debug)]
pub struct BoardWatch {
    pub rules: BoardRules,
    pub hold_ms: u64,
    pub enforce: bool,
    /// Whether the board was set up turned round (decided by its first report that shows
    /// the game's position one way or the other).
    pub turned: Option<bool>,
    /// Whether a `board_move` has said so yet.
    pub told_turned: bool,
    /// Whether the log has had a clock event: then only presses commit.
    pub clocked: bool,
    pub pending: Option<Pending>,
    /// The reports since the last commit point, and what they showed.
    pub since: Vec<u64>,
    pub seen: Vec<Placement>,
    pub lifts: Vec<Lift>,
    pub provisional: Option<Provisional>,
    pub mismatch: Option<Mismatch>,
    /// Whether the last report showed the result signal.
    pub signalled: bool,
    /// The last report: its seq, device and placement as the board sent it, for the console.
    pub last: Option<LastReport>,
    /// The position before a move read from the board that ended the game.
    pub took_back: Option<TakeBack>,
}

/// The position before the move read from the board that ended the game, and when.
#[derive(Clone, Debug)]
pub struct TakeBack {
    pub before: Placement,
    pub at: u64,
    pub ts: Option<u64>,
}

/// The last report as it came, for the console's device badge and board diagram.
#[derive(Clone, Debug, PartialEq)]
pub struct LastReport {
    pub seq: u64,
    pub ts: Option<u64>,
    pub device: Option<String>,
    pub placement: String,
}

impl BoardWatch {
    pub fn new(rules: BoardRules, hold_ms: Option<u64>, enforce: bool) -> BoardWatch {
        BoardWatch {
            rules,
            hold_ms: hold_ms.unwrap_or(DEFAULT_HOLD_MS),
            enforce,
            turned: None,
            told_turned: false,
            clocked: false,
            pending: None,
            since: Vec::new(),
            seen: Vec::new(),
            lifts: Vec::new(),
            provisional: None,
            mismatch: None,
            signalled: false,
            last: None,
            took_back: None,
        }
    }

    /// The placement as the board sent it, turned the game's way round.
    pub fn oriented(&self, placement: Placement) -> Placement {
        if self.turned == Some(true) {
            placement.turned()
        } else {
            placement
        }
    }

    /// Decides the board's orientation from a report, if not decided yet: the first report
    /// that shows the game's position one way round or the other.
    pub fn orient(&mut self, shown: &Placement, here: &Placement) {
        if self.turned.is_some() {
            return;
        }
        let shows = |a: &Placement, b: &Placement| {
            a.cells().len() == b.cells().len()
                && a.cells()
                    .iter()
                    .zip(b.cells())
                    .all(|(s, h)| (self.rules.shows)(*s, *h))
        };
        if shows(shown, here) {
            self.turned = Some(false);
        } else if shows(&shown.turned(), here) {
            self.turned = Some(true);
        }
    }

    /// Notes the pieces of `to_move` that a report shows lifted, and those it shows back.
    pub fn note_lifts(&mut self, seq: u64, ts: Option<u64>, shown: &Placement, here: &Placement) {
        // While the board and the game disagree, an empty square says nothing of a hand.
        if self.mismatch.is_some() || self.provisional.is_some() {
            return;
        }
        for (cell, (s, h)) in shown.cells().iter().zip(here.cells()).enumerate() {
            let own = h.and_then(self.rules.owner);
            let open = self
                .lifts
                .iter_mut()
                .find(|l| l.cell == cell && l.back.is_none());
            match (s, open) {
                (None, None) if own.is_some() => {
                    self.lifts.push(Lift {
                        cell,
                        seq,
                        ts,
                        back: None,
                    });
                }
                (Some(_), Some(lift)) => lift.back = Some((seq, ts)),
                _ => {}
            }
        }
    }

    /// The reports a commit rests on, and a fresh start for the next.
    pub fn take_evidence(&mut self) -> Vec<u64> {
        self.seen.clear();
        let mut seqs = std::mem::take(&mut self.since);
        if seqs.len() > MOST_EVIDENCE {
            seqs.drain(..seqs.len() - MOST_EVIDENCE);
        }
        seqs
    }

    /// Remembers a report's seq for the evidence of the next commit.
    pub fn saw(&mut self, seq: u64, shown: &Placement) {
        if self.seen.len() < 4 * MOST_EVIDENCE {
            self.seen.push(shown.clone());
        }
        self.since.push(seq);
        if self.since.len() > 4 * MOST_EVIDENCE {
            self.since.drain(..self.since.len() - MOST_EVIDENCE);
        }
    }
}

/// The lifts of `player`'s pieces that count (not flickers), outside `moved` (the cells the
/// derived plies changed).
pub fn touches(lifts: &[Lift], moved: &[usize]) -> Vec<Lift> {
    let mut out: Vec<Lift> = Vec::new();
    for lift in lifts
        .iter()
        .filter(|l| l.counts() && !moved.contains(&l.cell))
    {
        if !out.iter().any(|l| l.cell == lift.cell) {
            out.push(lift.clone());
        }
    }
    out
}
