//! Renju as the shared layers see it.

use crate::games::spec::{
    Alert, GameSpec, MoveShape, Notation, RuleKey, Scoring, SquareKind, Squares,
};

pub static SPEC: GameSpec = GameSpec {
    name: "renju",
    title: "Renju (连珠)",
    sides: ["black", "white"],
    squares: Squares {
        kind: SquareKind::Named,
        range: "a1-o15",
    },
    moves: MoveShape {
        from: false,
        promotion: "",
        captures: false,
        reveals: false,
    },
    rules: &[RuleKey::FoulLimit, RuleKey::Forbidden, RuleKey::Opening],
    scoring: Scoring {
        win: 4,
        draw: 2,
        source: "renju (seed 002): 胜一局得2分，和一局得1分",
    },
    alerts: &[Alert {
        kind: "forbidden",
        alert: "forbidden",
        meaning: "black's stone stands on a forbidden point and white may still claim it",
    }],
    notation: Notation {
        example: "h8",
        source: "a stone by its point, file a-o and row 1-15",
    },
};
