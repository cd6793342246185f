//! Fouls and the foul limit: each player's fouls counted explicitly, with the event of each,
//! so the `foul_limit` ruling can list them (chess_gjq 5.7: the second foul loses; xiangqi
//! regulations: the third, or the second under `foul_limit: 2`).

use crate::event::{Header, Side};
use crate::games::Variant;

use super::article::Article;
use super::ruling::Reason;
use super::table::Policy;
use super::{Ruling, RulingKind};

/// One counted foul: the seq of its ruling and what it was (the act its ruling names).
#[derive(Clone, Debug, PartialEq)]
struct Foul {
    at: u64,
    what: String,
}

/// Each player's fouls and the limit that loses the game.
#[derive(Clone, Debug)]
pub struct FoulBook {
    variant: Variant,
    limit: Option<u32>,
    /// The article of the loss at the limit.
    article: Article,
    fouls: [Vec<Foul>; 2],
}

impl FoulBook {
    /// The limit is the header's `foul_limit`, else the rule book's (the table's policy).
    pub fn new(header: &Header, policy: &Policy) -> FoulBook {
        FoulBook {
            variant: header.variant,
            limit: header.rules.foul_limit.or(policy.foul_limit),
            article: policy.foul_limit_article,
            fouls: [Vec::new(), Vec::new()],
        }
    }

    /// Counts `ruling` if it is a foul; returns the `foul_limit` ruling when the limit is reached.
    pub fn count(&mut self, ruling: &Ruling) -> Option<Ruling> {
        let Reason::Foul { act } = &ruling.reason else {
            return None;
        };
        let side = ruling.side?;
        let index = player(side)?;
        self.fouls[index].push(Foul {
            at: ruling.at,
            what: short(act),
        });
        let limit = self.limit?;
        let count = self.fouls[index].len();
        (u32::try_from(count).ok()? == limit).then(|| self.limit_ruling(ruling.at, side, limit))
    }

    /// An overturned ruling's foul no longer counts.
    pub fn overturn(&mut self, at: u64) {
        for fouls in &mut self.fouls {
            fouls.retain(|f| f.at != at);
        }
    }

    fn limit_ruling(&self, at: u64, side: Side, limit: u32) -> Ruling {
        let fouls = &self.fouls[player(side).unwrap_or(0)];
        let list: Vec<String> = fouls
            .iter()
            .map(|f| format!("event {} ({})", f.at, f.what))
            .collect();
        let text = format!(
            "{} has committed {limit} fouls, the limit of this game's rules, and loses: {}",
            side.name(self.variant),
            list.join("; ")
        );
        Ruling::loss(at, RulingKind::FoulLimit, side, self.article, text)
            .with_evidence(fouls.iter().map(|f| f.at).collect())
    }
}

fn player(side: Side) -> Option<usize> {
    match side {
        Side::First => Some(0),
        Side::Second => Some(1),
        Side::Arbiter | Side::Board => None,
    }
}

/// The act, cut short enough for a list.
fn short(act: &str) -> String {
    act.chars().take(100).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::table::Table;

    fn foul(at: u64, side: Side) -> Ruling {
        Ruling::notice(
            at,
            RulingKind::Foul,
            Some(side),
            Article::Xiangqi("x"),
            format!("foul number {at}: details"),
        )
        .foul(format!("foul number {at}"))
    }

    fn book(variant: Variant) -> FoulBook {
        let header = Header::new(variant, "g");
        let table = Table::new(&header).expect("table");
        FoulBook::new(&header, &table.policy())
    }

    #[test]
    fn the_limit_is_reached_by_the_nth_foul_of_one_player() {
        let mut book = book(Variant::Xiangqi);
        assert_eq!(book.count(&foul(3, Side::First)), None);
        assert_eq!(book.count(&foul(5, Side::Second)), None);
        assert_eq!(book.count(&foul(7, Side::First)), None, "two of three");
        let limit = book.count(&foul(9, Side::First)).expect("third red foul");
        assert_eq!(
            (limit.kind, limit.side, limit.evidence.clone()),
            (RulingKind::FoulLimit, Some(Side::First), vec![3, 7, 9])
        );
        assert!(
            limit.text.contains("event 3 (foul number 3); event 7"),
            "{}",
            limit.text
        );
    }

    #[test]
    fn an_overturned_foul_no_longer_counts() {
        let mut book = book(Variant::ChessGjq);
        assert_eq!(book.count(&foul(3, Side::First)), None);
        book.overturn(3);
        assert_eq!(
            book.count(&foul(5, Side::First)),
            None,
            "only one foul counts now"
        );
        assert!(book.count(&foul(8, Side::First)).is_some());
    }
}
