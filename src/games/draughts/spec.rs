//! International draughts as the shared layers see it.

use crate::games::spec::{GameSpec, MoveShape, Notation, RuleKey, Scoring, SquareKind, Squares};

pub static SPEC: GameSpec = GameSpec {
    name: "draughts",
    title: "International draughts (10x10)",
    sides: ["white", "black"],
    squares: Squares {
        kind: SquareKind::Numbered,
        range: "1-50",
    },
    moves: MoveShape {
        from: true,
        promotion: "",
        captures: true,
        reveals: false,
    },
    rules: &[
        RuleKey::FoulLimit,
        RuleKey::IllegalMove,
        RuleKey::RepetitionCount,
        RuleKey::BoardHoldMs,
        RuleKey::BoardTouch,
    ],
    scoring: Scoring {
        win: 4,
        draw: 2,
        source: "draughts 12.6: a win 2 points, a draw 1",
    },
    alerts: &[],
    notation: Notation {
        example: "32-28, 28x19",
        source: "draughts 10: square numbers, '-' for a move and 'x' for a capture",
    },
};
