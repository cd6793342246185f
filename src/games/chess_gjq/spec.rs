//! Chess Gjq as the shared layers see it.

use crate::games::spec::{GameSpec, MoveShape, Notation, RuleKey, Scoring, SquareKind, Squares};

pub static SPEC: GameSpec = GameSpec {
    name: "chess_gjq",
    title: "Chess Gjq (国象翻棋)",
    sides: ["white", "black"],
    squares: Squares {
        kind: SquareKind::Named,
        range: "a1-h8",
    },
    moves: MoveShape {
        from: true,
        promotion: "qrbn",
        captures: false,
        reveals: true,
    },
    rules: &[
        RuleKey::MoveLimit,
        RuleKey::FoulLimit,
        RuleKey::IllegalMove,
        RuleKey::RepetitionCount,
        RuleKey::BoardHoldMs,
        RuleKey::BoardTouch,
    ],
    scoring: Scoring {
        win: 2,
        draw: 1,
        source: "chess_gjq 7: a win 1, a draw ½",
    },
    alerts: &[],
    notation: Notation {
        example: "e2-e4",
        source: "chess_gjq 9.3: from and to, then what a hidden piece turned out to be",
    },
};
