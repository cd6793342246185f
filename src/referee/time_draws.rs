//! When running out of time does not lose, and the draughts judgment rule:
//! - chess_gjq: the opponent cannot mate by any series of legal moves (the rules of chess,
//!   which chess_gjq follows where its book is silent: FIDE Laws 6.9) — a draw;
//! - draughts 8.1.3.1A: in sudden-death play, a theoretical draw (the material of 12.3.3 or
//!   12.3.4) is a draw whoever's flag falls;
//! - draughts 8.1.3.1B: with at most 8 pieces on the board, a player with under a minute left
//!   may ask the arbiter to declare a draw; the referee checks the conditions and asks the
//!   arbiter for the decision (a ruling with effect `none`).

use crate::event::Side;
use crate::games::Variant;

use super::draughts::time::{JUDGMENT_MAX_PIECES, JUDGMENT_UNDER_MS};
use super::{Effect, GameResult, Referee, Ruling, RulingKind, Table};

impl Referee {
    /// Turns each time forfeit in `rulings` into a draw where the rules say the flag's fall
    /// does not lose.
    pub(super) fn forfeit_draws(&self, rulings: &mut [Ruling]) {
        for ruling in rulings.iter_mut() {
            let (RulingKind::TimeForfeit, Effect::Loss, Some(flagged)) =
                (ruling.kind, ruling.effect, ruling.side)
            else {
                continue;
            };
            let Some((rule, why)) = self.cannot_lose_on_time(flagged) else {
                continue;
            };
            ruling.effect = Effect::Draw;
            ruling.result = Some(GameResult::Draw);
            // The clock's text ends "; <side> loses on time": replace that conclusion.
            let facts = ruling
                .text
                .rsplit_once("; ")
                .map_or(ruling.text.as_str(), |(facts, _)| facts);
            ruling.text = format!("{facts}. But {why}: the game is drawn, not lost ({rule})");
            ruling.rule = rule;
        }
    }

    fn cannot_lose_on_time(&self, flagged: Side) -> Option<(String, String)> {
        match &self.table {
            Table::ChessGjq(t) => t.cannot_mate(flagged.opponent()).map(|why| {
                (
                    "chess_gjq 5.3, FIDE 6.9".to_string(),
                    format!("{why}, and no series of legal moves can mate"),
                )
            }),
            Table::Draughts(t) if self.sudden_death() => t.theoretical_draw().map(|material| {
                (
                    "draughts 8.1.3.1A".to_string(),
                    format!("the position ({material}) is a theoretical draw in sudden-death play"),
                )
            }),
            _ => None,
        }
    }

    /// Sudden death: one period of fixed time, no increment, no further periods (8.1.1).
    fn sudden_death(&self) -> bool {
        self.header
            .clock
            .as_ref()
            .is_some_and(|c| c.initial_ms.is_some() && c.increment_ms == 0 && c.periods.is_empty())
    }

    /// 8.1.3.1B: `side` asks the arbiter to declare a draw (a draughts `insufficient_material`
    /// claim) at `ts`.
    pub(super) fn judgment_claim(&self, seq: u64, side: Side, ts: Option<u64>) -> Ruling {
        let rule = "draughts 8.1.3.1B";
        let name = side.name(Variant::Draughts);
        let Table::Draughts(table) = &self.table else {
            unreachable!("judgment claims are draughts claims");
        };
        let pieces = table.piece_count();
        let left = self.clock.remaining_at(side, ts);
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
