//! Xiangqi as the shared layers see it.

use crate::games::spec::{GameSpec, MoveShape, Notation, RuleKey, Scoring, SquareKind, Squares};

pub static SPEC: GameSpec = GameSpec {
    name: "xiangqi",
    title: "Xiangqi (中国象棋)",
    sides: ["red", "black"],
    squares: Squares {
        kind: SquareKind::Named,
        range: "a0-i9",
    },
    moves: MoveShape {
        from: true,
        promotion: "",
        captures: false,
        reveals: false,
    },
    rules: &[
        RuleKey::MoveLimit,
        RuleKey::FoulLimit,
        RuleKey::IllegalMove,
        RuleKey::RepetitionCount,
        RuleKey::RuleSet,
        RuleKey::Procedure,
        RuleKey::BoardHoldMs,
        RuleKey::BoardTouch,
    ],
    scoring: Scoring {
        win: 4,
        draw: 2,
        source: "the xiangqi tournament tables: a win 2, a draw 1",
    },
    alerts: &[],
    notation: Notation {
        example: "b0d1",
        source: "ICCS coordinates, as UCCI engines and the cycle and chase texts write them",
    },
};
