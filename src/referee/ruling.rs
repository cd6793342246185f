//! A ruling: what the referee decided about an event, and why, in words an arbiter can check.

use serde_json::{Map, Value, json};

use crate::event::{Event, GameResult, Side, named_enum};
use crate::games::Variant;

use super::article::Article;

/// A decision derived from the log. Never stored as truth: it is re-derived by replay.
#[derive(Clone, Debug, PartialEq)]
pub struct Ruling {
    /// Seq of the event that gave rise to the ruling.
    pub at: u64,
    pub kind: RulingKind,
    /// Whom it concerns: the side that loses, commits the foul or makes the claim.
    pub side: Option<Side>,
    pub effect: Effect,
    /// Present exactly on the ruling that ends the game.
    pub result: Option<GameResult>,
    /// The article applied, as data; [`Ruling::rule`] writes it as the log format does.
    pub article: Article,
    /// The justification: what happened, at which events, which counts or positions prove it.
    pub text: String,
    /// Seqs of the events the justification relies on.
    pub evidence: Vec<u64>,
    /// What a later rule needs of this ruling, as data: nothing reads the text back.
    pub reason: Reason,
    /// `board_move`: the move derived from a board's reports, as the log would write it.
    pub event: Option<Box<Event>>,
}

/// The data a later rule acts on, beside the ruling's words (not part of the log format).
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// No later rule acts on this ruling.
    Plain,
    /// A foul: what was done, as the clause that opens the text, for the foul limit's list.
    Foul { act: String },
    /// A flag's fall: the facts that open the text, before its conclusion "loses on time",
    /// for a rule by which the fall does not lose (chess_gjq 5.3 with FIDE 6.9, draughts
    /// 8.1.3.1A).
    TimeForfeit { facts: String },
}

named_enum! {
    /// The kinds of ruling of the log format.
    RulingKind {
        IllegalMove = "illegal_move",
        Foul = "foul",
        FoulLimit = "foul_limit",
        Checkmate = "checkmate",
        Stalemate = "stalemate",
        NoMoves = "no_moves",
        Repetition = "repetition",
        PerpetualCheck = "perpetual_check",
        PerpetualChase = "perpetual_chase",
        MoveLimit = "move_limit",
        EndgameCount = "endgame_count",
        InsufficientMaterial = "insufficient_material",
        Agreement = "agreement",
        Resignation = "resignation",
        TimeForfeit = "time_forfeit",
        ClaimRejected = "claim_rejected",
        OfferRejected = "offer_rejected",
        InvalidEvent = "invalid_event",
        ArbiterDecision = "arbiter_decision",
        // A chess_gjq shuffle opening that does not match its commitment, or a reveal that
        // contradicts the opened set-up (chess_gjq 3.1.4).
        ShuffleMismatch = "shuffle_mismatch",
        // Renju: five in a row (2.1-2.3), black's stone on a forbidden point (3, 4), the
        // full board (5.1).
        Five = "five",
        Forbidden = "forbidden",
        FullBoard = "full_board",
        BoardMove = "board_move",
        BoardMismatch = "board_mismatch",
        BoardTouch = "board_touch",
        BoardResultSignal = "board_result_signal",
    }
}

named_enum! {
    /// What a ruling does to the game.
    Effect {
        Loss = "loss",
        Draw = "draw",
        Foul = "foul",
        CorrectionRequired = "correction_required",
        MustVary = "must_vary",
        DrawClaimable = "draw_claimable",
        None = "none",
    }
}

impl Ruling {
    /// A ruling that `side` loses at `at`, ending the game.
    pub fn loss(at: u64, kind: RulingKind, side: Side, article: Article, text: String) -> Ruling {
        Ruling {
            at,
            kind,
            side: Some(side),
            effect: Effect::Loss,
            result: Some(side.loses()),
            article,
            text,
            evidence: vec![at],
            reason: Reason::Plain,
            event: None,
        }
    }

    /// A ruling that ends the game in a draw.
    pub fn draw(at: u64, kind: RulingKind, article: Article, text: String) -> Ruling {
        Ruling {
            at,
            kind,
            side: None,
            effect: Effect::Draw,
            result: Some(GameResult::Draw),
            article,
            text,
            evidence: vec![at],
            reason: Reason::Plain,
            event: None,
        }
    }

    /// A ruling that changes no result: an event the arbiter must look at, a rejected claim.
    pub fn notice(
        at: u64,
        kind: RulingKind,
        side: Option<Side>,
        article: Article,
        text: String,
    ) -> Ruling {
        Ruling {
            at,
            kind,
            side,
            effect: Effect::None,
            result: None,
            article,
            text,
            evidence: vec![at],
            reason: Reason::Plain,
            event: None,
        }
    }

    pub fn with_evidence(mut self, evidence: Vec<u64>) -> Ruling {
        self.evidence = evidence;
        self
    }

    /// The ruling under `article` instead.
    pub fn cite(&mut self, article: Article) {
        self.article = article;
    }

    /// The article as the log format writes it, e.g. `xiangqi 4.1`.
    pub fn rule(&self) -> String {
        self.article.to_string()
    }

    /// The ruling as a foul, `act` being the clause that opens its text: the effect and the
    /// data the foul limit counts go together.
    pub fn foul(mut self, act: String) -> Ruling {
        self.effect = Effect::Foul;
        self.reason = Reason::Foul { act };
        self
    }

    /// The ruling as the log format's JSON object, side names in `variant`'s words.
    pub fn to_value(&self, variant: Variant) -> Value {
        let mut m = Map::new();
        m.insert("at".into(), self.at.into());
        m.insert("kind".into(), self.kind.as_str().into());
        if let Some(side) = self.side {
            m.insert("side".into(), side.name(variant).into());
        }
        m.insert("effect".into(), self.effect.as_str().into());
        if let Some(result) = self.result {
            m.insert("result".into(), result.as_str().into());
        }
        m.insert("rule".into(), json!(self.rule()));
        m.insert("text".into(), json!(self.text));
        m.insert("evidence".into(), json!(self.evidence));
        if let Some(event) = &self.event {
            m.insert("event".into(), crate::event::event_value(event, variant));
        }
        Value::Object(m)
    }

    /// One line of `referee replay --json`.
    pub fn to_json(&self, variant: Variant) -> String {
        self.to_value(variant).to_string()
    }

    /// The heading of the ruling in `referee replay` without `--json`, e.g.
    /// `event 3: illegal_move red (loss -> 0-1) [xiangqi 4.1]`; its text follows beneath.
    pub fn heading(&self, variant: Variant) -> String {
        let side = self
            .side
            .map(|s| format!(" {}", s.name(variant)))
            .unwrap_or_default();
        let result = self.result.map(|r| format!(" -> {r}")).unwrap_or_default();
        format!(
            "event {}: {}{} ({}{}) [{}]",
            self.at, self.kind, side, self.effect, result, self.article
        )
    }
}
