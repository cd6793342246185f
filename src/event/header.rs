//! The game header: the first line of every log.

use crate::games::{RuleKey, Variant};

use super::named_enum;

/// The header of a game log: which game, which rules, which clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub variant: Variant,
    /// Free text naming the game, e.g. `2026-ch-r3-b12`.
    pub id: String,
    /// A FEN to start from instead of the standard start.
    pub start: Option<String>,
    pub rules: RuleOptions,
    pub clock: Option<ClockControl>,
    /// PGN/PDN tag pairs about the game rather than its rules (`Event`, `Round`, `White`, ...),
    /// in the order given. They never change a ruling.
    pub tags: Vec<(String, String)>,
}

impl Header {
    /// A header for the standard start with the variant's default rules and no clock.
    pub fn new(variant: Variant, id: impl Into<String>) -> Header {
        Header {
            variant,
            id: id.into(),
            start: None,
            rules: RuleOptions::default(),
            clock: None,
            tags: Vec::new(),
        }
    }

    /// The tags of a PGN/PDN record worth keeping in a header: those not in `skip` (the tags
    /// that the header or the moves already say, such as `FEN` or `Result`), with a value that
    /// is not empty, each name once (the first), and only what a header may hold (see
    /// [`super::check::tags`]); a tag that cannot be kept is left out rather than refusing
    /// the record.
    pub fn record_tags<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
        skip: &[&str],
    ) -> Vec<(String, String)> {
        let mut tags: Vec<(String, String)> = Vec::new();
        for (name, value) in pairs {
            let value = value.trim();
            if value.is_empty()
                || skip.iter().any(|s| s.eq_ignore_ascii_case(name))
                || tags.iter().any(|(n, _)| n == name)
                || tags.len() == super::check::MAX_TAGS
            {
                continue;
            }
            let candidate = [(name.to_string(), value.to_string())];
            if super::check::tags(&candidate).is_ok() {
                let [pair] = candidate;
                tags.push(pair);
            }
        }
        tags
    }

    /// The PGN tag that names the player of `side`: the side's name capitalised (`White`,
    /// `Red`, `Black`). Not the arbiter's.
    pub fn player_tag(variant: Variant, side: super::Side) -> String {
        let mut tag = side.name(variant).to_string();
        if let Some(first) = tag.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        tag
    }

    /// The player of `side` as the header's tags name them.
    pub fn player(&self, side: super::Side) -> Option<&str> {
        self.tag(&Self::player_tag(self.variant, side))
    }

    /// The value of tag `name`, if the header has it (names compare exactly, as in PGN).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Overrides of the variant's rule set. Every field absent means the variant's default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleOptions {
    /// Xiangqi natural move limit: moves by each side without a capture (default 60).
    pub move_limit: Option<u32>,
    /// Fouls that lose the game (chess_gjq 2, xiangqi default 3).
    pub foul_limit: Option<u32>,
    /// Whether an illegal move loses or is a foul, where a rule set allows the choice.
    pub illegal_move: Option<IllegalMovePolicy>,
    /// Occurrence of a repeated position at which a cycle is judged (xiangqi default 3).
    pub repetition_count: Option<u32>,
    /// Xiangqi: the CXA rules (default) or the reform proposal of seed 001.
    pub rule_set: Option<RuleSet>,
    /// Xiangqi: who carries out a cycle's or the natural limit's verdict (default arbiter).
    pub procedure: Option<Procedure>,
    /// Renju: what becomes of black's stone on a forbidden point (default claim).
    pub forbidden: Option<ForbiddenRule>,
    /// Renju: the opening rule (default `centre`, seed 002's).
    pub opening: Option<OpeningRule>,
    /// Electronic boards in a game without clock events: how long a placement must stand
    /// unchanged to be read as a move (default 1000 ms).
    pub board_hold_ms: Option<u64>,
    /// Electronic boards: whether a piece lifted and put back is a notice (default) or a
    /// touch under the book's touch-move rule.
    pub board_touch: Option<BoardTouch>,
}

impl RuleOptions {
    /// The options this header sets, as the log format names them.
    pub fn keys(&self) -> impl Iterator<Item = RuleKey> {
        let set = [
            (RuleKey::MoveLimit, self.move_limit.is_some()),
            (RuleKey::FoulLimit, self.foul_limit.is_some()),
            (RuleKey::IllegalMove, self.illegal_move.is_some()),
            (RuleKey::RepetitionCount, self.repetition_count.is_some()),
            (RuleKey::RuleSet, self.rule_set.is_some()),
            (RuleKey::Procedure, self.procedure.is_some()),
            (RuleKey::Forbidden, self.forbidden.is_some()),
            (RuleKey::Opening, self.opening.is_some()),
            (RuleKey::BoardHoldMs, self.board_hold_ms.is_some()),
            (RuleKey::BoardTouch, self.board_touch.is_some()),
        ];
        set.into_iter().filter(|(_, on)| *on).map(|(key, _)| key)
    }
}

named_enum! {
    /// What an illegal move costs.
    IllegalMovePolicy {
        Loss = "loss",
        Foul = "foul",
    }
}

named_enum! {
    /// Xiangqi: how the verdict on a cycle or the natural limit is carried out (log format,
    /// "Draws and cycles the book leaves to a claim"): `arbiter` as the CXA books do it (an
    /// order to vary, a draw on a claim or the arbiter's word), `automatic` as engines and
    /// online play do (the verdict ends the game when it arises).
    Procedure {
        Arbiter = "arbiter",
        Automatic = "automatic",
    }
}

named_enum! {
    /// Renju: what becomes of black's stone on a forbidden point (renju 4): `claim` as seed
    /// 002's text has it (white must point it out before placing its next stone, and then
    /// black loses), `replay` (a true claim voids the stone and black places again), `loss`
    /// (the stone loses at once).
    ForbiddenRule {
        Claim = "claim",
        Replay = "replay",
        Loss = "loss",
    }
}

/// Renju: the opening rule (docs/rules/renju.md 1.3-1.4 and 7): seed 002's `centre`, or one
/// of the RIF rules with its number of fifth-move offers where the rule takes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningRule {
    /// Black's first stone on h8, white's first on rows 9-15, then in turn (seed 002).
    Centre,
    /// RIF 1996: the first player's three stones, a swap, two fifth-move offers.
    Rif,
    /// Three stones and a declared number of offers, a swap, the offers.
    Yamaguchi,
    /// Stones in growing squares with a swap after each, then one fifth stone or N offers.
    Taraguchi(u32),
    /// Three stones, a swap, the fourth with a declaration of 1 to N offers, a swap.
    Soosorv(u32),
}

impl OpeningRule {
    /// The largest `N` of `taraguchi-N` and `soosorv-N`: the empty points after four stones.
    pub const MAX_OFFERS: u32 = 221;

    /// The names the log format gives, for messages and `referee games`.
    pub const NAMES: [&'static str; 5] = [
        "centre",
        "rif",
        "yamaguchi",
        "taraguchi-N (e.g. taraguchi-10)",
        "soosorv-N (e.g. soosorv-8)",
    ];

    pub fn parse(text: &str) -> Option<OpeningRule> {
        let counted = |prefix: &str| {
            let n: u32 = text.strip_prefix(prefix)?.parse().ok()?;
            (1..=Self::MAX_OFFERS).contains(&n).then_some(n)
        };
        Some(match text {
            "centre" => OpeningRule::Centre,
            "rif" => OpeningRule::Rif,
            "yamaguchi" => OpeningRule::Yamaguchi,
            _ => {
                if let Some(n) = counted("taraguchi-") {
                    OpeningRule::Taraguchi(n)
                } else {
                    OpeningRule::Soosorv(counted("soosorv-")?)
                }
            }
        })
    }

    /// Whether this is one of the RIF rules, with swaps and offers.
    pub fn is_rif(self) -> bool {
        self != OpeningRule::Centre
    }
}

impl std::fmt::Display for OpeningRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpeningRule::Centre => f.write_str("centre"),
            OpeningRule::Rif => f.write_str("rif"),
            OpeningRule::Yamaguchi => f.write_str("yamaguchi"),
            OpeningRule::Taraguchi(n) => write!(f, "taraguchi-{n}"),
            OpeningRule::Soosorv(n) => write!(f, "soosorv-{n}"),
        }
    }
}

named_enum! {
    /// What a piece lifted on an electronic board and put back (or lifted before another is
    /// moved) counts as: evidence for the arbiter, or a touch under the touch-move rule.
    BoardTouch {
        Notice = "notice",
        Enforce = "enforce",
    }
}

named_enum! {
    /// A named rule set of a variant.
    RuleSet {
        Cxa = "cxa",
        Reform = "reform",
    }
}

/// A time control.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClockControl {
    /// Sudden death or Fischer: the time each side starts with.
    pub initial_ms: Option<u64>,
    /// "N moves in T" periods; the last one repeats.
    pub periods: Vec<Period>,
    /// Fischer increment added after each move.
    pub increment_ms: u64,
    /// A per-move limit whose overrun is a foul.
    pub per_move_ms: Option<u64>,
    /// The per-move limit applies once a side has used this much time.
    pub per_move_after_ms: Option<u64>,
}

/// One period of a time control: `moves` moves in `ms` milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    pub moves: u32,
    pub ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Side;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_record_keeps_its_tags_but_the_rules_empty_values_repeats_and_misfits() {
        let long = "x".repeat(crate::event::check::MAX_TAG_VALUE + 1);
        let record = [
            ("Event", "Open"),
            ("FEN", "whatever"),
            ("Result", "1-0"),
            ("Red", "  Hu  "),
            ("Black", ""),
            ("Event", "second"),
            ("Bad-Name", "x"),
            ("Note", "two\nlines"),
            ("Long", long.as_str()),
            ("Round", "3"),
        ];
        assert_eq!(
            Header::record_tags(record, &["fen", "Result"]),
            pairs(&[("Event", "Open"), ("Red", "Hu"), ("Round", "3")])
        );
    }

    #[test]
    fn the_player_tags_are_the_side_names() {
        let mut header = Header::new(Variant::Xiangqi, "g");
        header.tags = pairs(&[("Red", "Hu"), ("White", "not xiangqi's")]);
        assert_eq!(header.player(Side::First), Some("Hu"));
        assert_eq!(header.player(Side::Second), None);
        assert_eq!(Header::player_tag(Variant::Draughts, Side::First), "White");
        assert_eq!(Header::player_tag(Variant::ChessGjq, Side::Second), "Black");
    }

    #[test]
    fn tags_round_trip_through_the_header_line_in_order() {
        let mut header = Header::new(Variant::Draughts, "g");
        header.tags = pairs(&[
            ("White", "B \"q\" \\ c"),
            ("Black", "A"),
            ("Date", "2026.12.04"),
        ]);
        let line = crate::event::header_to_json(&header);
        assert!(
            line.ends_with(r#""tags":{"White":"B \"q\" \\ c","Black":"A","Date":"2026.12.04"}}"#),
            "{line}"
        );
        assert_eq!(crate::event::header_from_json(&line), Ok(header));
    }

    #[test]
    fn tags_are_checked() {
        let check = |list: &[(&str, &str)]| crate::event::check::tags(&pairs(list));
        assert!(check(&[("Event", "x"), ("Round_2", "y")]).is_ok());
        assert!(
            check(&[("Event", "x"), ("Event", "y")])
                .unwrap_err()
                .contains("twice")
        );
        assert!(
            check(&[("2nd", "x")])
                .unwrap_err()
                .contains("starting with a letter")
        );
        assert!(check(&[("", "x")]).is_err());
        assert!(check(&[("Event", "a\tb")]).unwrap_err().contains("control"));
        let many: Vec<(String, String)> = (0..=crate::event::check::MAX_TAGS)
            .map(|i| (format!("T{i}"), "v".to_string()))
            .collect();
        assert!(
            crate::event::check::tags(&many)
                .unwrap_err()
                .contains("at most")
        );
    }
}
