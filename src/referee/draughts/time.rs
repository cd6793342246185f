//! Draughts 8.1.3.1: in sudden-death play a theoretical draw is not lost on time (A), and with
//! few pieces left a player short of time may ask the arbiter for a draw (B).

use crate::event::{Header, Side};

use super::super::article::Article;
use super::super::table::TimeDraw;
use super::draw_counts::{EndgameClass, material};
use super::{DraughtsTable, Ruling, RulingKind, name};

/// 8.1.3.1B: the most pieces on the board at which a player may ask for the draw.
pub const JUDGMENT_MAX_PIECES: usize = 8;
/// 8.1.3.1B: the time a player must be under to ask.
pub const JUDGMENT_UNDER_MS: i64 = 60_000;

impl DraughtsTable {
    /// The theoretical draw of 8.1.3.1A (the material of 12.3.3 or 12.3.4: three kings, two
    /// kings and a man, a king and two men, two kings, a king and a man, or a king against a
    /// lone king), in words, if the position holds one.
    pub fn theoretical_draw(&self) -> Option<String> {
        let pos = &self.game.position;
        EndgameClass::of(pos).map(|_| material(pos))
    }

    /// 8.1.3.1A: in sudden-death play, a flag's fall in a theoretical draw is a draw.
    pub(super) fn time_draw(&self, header: &Header) -> Option<TimeDraw> {
        if !sudden_death(header) {
            return None;
        }
        self.theoretical_draw().map(|material| TimeDraw {
            article: Article::Draughts("8.1.3.1A"),
            why: format!("the position ({material}) is a theoretical draw in sudden-death play"),
        })
    }

    /// Pieces on the board, for 8.1.3.1B.
    pub fn piece_count(&self) -> usize {
        self.game.position.pieces().count()
    }

    /// 8.1.3.1B: `side` asks the arbiter to declare a draw (a draughts `insufficient_material`
    /// claim) with `left` ms by the referee's clock (`None` without a time control).
    pub(super) fn judgment_claim(&self, seq: u64, side: Side, left: Option<i64>) -> Ruling {
        let rule = Article::Draughts("8.1.3.1B");
        let name = name(side);
        let pieces = self.piece_count();
        let refuse = |why: String| {
            Ruling::notice(
                seq,
                RulingKind::ClaimRejected,
                Some(side),
                rule,
                format!("{name} asked at event {seq} for a draw under 8.1.3.1B, but {why}"),
            )
        };
        if pieces > JUDGMENT_MAX_PIECES {
            return refuse(format!(
                "{pieces} pieces are on the board (at most {JUDGMENT_MAX_PIECES} allowed)"
            ));
        }
        match left {
            None => refuse("the game has no time control in its header".to_string()),
            Some(ms) if ms >= JUDGMENT_UNDER_MS => refuse(format!(
                "{name} still has {ms} ms by the referee's clock (under {JUDGMENT_UNDER_MS} ms required)"
            )),
            Some(ms) => Ruling::notice(
                seq,
                RulingKind::InsufficientMaterial,
                Some(side),
                rule,
                format!(
                    "{name} asks at event {seq} for a draw under 8.1.3.1B: {pieces} pieces on the board (at most {JUDGMENT_MAX_PIECES}) and {ms} ms left by the referee's clock (under a minute). Whether the position is sufficient for a draw is the arbiter's judgment: the arbiter must decide (an `arbiter` event declaring 1/2-1/2, or a warning and play on)"
                ),
            ),
        }
    }
}

/// Sudden death: one period of fixed time, no increment, no further periods (8.1.1).
fn sudden_death(header: &Header) -> bool {
    header
        .clock
        .as_ref()
        .is_some_and(|c| c.initial_ms.is_some() && c.increment_ms == 0 && c.periods.is_empty())
}
