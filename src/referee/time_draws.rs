//! When running out of time does not lose: each game's table says whether the position
//! saves a player whose flag fell (chess_gjq with FIDE Laws 6.9: the opponent cannot mate;
//! draughts 8.1.3.1A: a theoretical draw in sudden-death play), and the forfeit becomes a
//! draw under that table's article.

use super::ruling::Reason;
use super::{Effect, GameResult, Referee, Ruling, RulingKind};

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
            let Reason::TimeForfeit { facts } = &ruling.reason else {
                continue;
            };
            let Some(draw) = self.table.time_draw(flagged, &self.header) else {
                continue;
            };
            // The forfeit's facts stand; the draw rule replaces its conclusion.
            let (article, why) = (draw.article, draw.why);
            ruling.text = format!("{facts}. But {why}: the game is drawn, not lost ({article})");
            ruling.cite(article);
            ruling.effect = Effect::Draw;
            ruling.result = Some(GameResult::Draw);
        }
    }
}
