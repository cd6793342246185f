//! Proto messages to and from the event model. Errors name the field's path in the request
//! (`events[2].event.move.from`), so a board's programmer can find the mistake at once.

use crate::event::BoardTouch;
use crate::event::check;
use crate::event::{
    ClaimKind, ClockControl, Decision, Event, EventKind, ForbiddenRule, GameResult, Header,
    IllegalMovePolicy, OpeningRule, Period, Procedure, RuleOptions, RuleSet, Side, Square,
};
use crate::games::Variant;
use crate::quote::quote;
use crate::referee::{Referee, Ruling};

use super::Error;
use super::proto;

type Result<T> = std::result::Result<T, Error>;

/// A header from a `CreateGame` request.
pub fn header_from_proto(h: proto::GameHeader) -> Result<Header> {
    let variant =
        Variant::parse_named(&h.variant).map_err(|m| Error::invalid("header.variant", m))?;
    let rules = h
        .rules
        .map(rules_from_proto)
        .transpose()?
        .unwrap_or_default();
    let clock = h.clock.map(clock_from_proto).transpose()?;
    // The same checks as a header line's, shared with the interchange format.
    check::rules(&rules, variant).map_err(|m| Error::invalid("header.rules", m))?;
    if let Some(clock) = &clock {
        check::clock(clock).map_err(|m| Error::invalid("header.clock", m))?;
    }
    let tags: Vec<(String, String)> = h.tags.into_iter().map(|t| (t.name, t.value)).collect();
    check::tags(&tags).map_err(|m| Error::invalid("header.tags", m))?;
    Ok(Header {
        variant,
        id: h.id,
        start: Some(h.start).filter(|s| !s.is_empty()),
        rules,
        clock,
        tags,
    })
}

fn rules_from_proto(r: proto::RuleOptions) -> Result<RuleOptions> {
    let illegal_move = named_option(
        r.illegal_move,
        "illegal_move",
        "policy",
        IllegalMovePolicy::parse,
    )?;
    let rule_set = named_option(r.rule_set, "rule_set", "rule set", RuleSet::parse)?;
    let procedure = named_option(r.procedure, "procedure", "procedure", Procedure::parse)?;
    let forbidden = named_option(r.forbidden, "forbidden", "procedure", ForbiddenRule::parse)?;
    let board_touch = named_option(r.board_touch, "board_touch", "setting", BoardTouch::parse)?;
    let opening = r
        .opening
        .map(|text| {
            OpeningRule::parse(&text).ok_or_else(|| {
                Error::invalid("header.rules.opening", crate::event::opening_refused(&text))
            })
        })
        .transpose()?;
    Ok(RuleOptions {
        opening,
        board_hold_ms: r.board_hold_ms,
        board_touch,
        move_limit: r.move_limit,
        foul_limit: r.foul_limit,
        illegal_move,
        repetition_count: r.repetition_count,
        rule_set,
        procedure,
        forbidden,
    })
}

fn clock_from_proto(c: proto::ClockControl) -> Result<ClockControl> {
    Ok(ClockControl {
        initial_ms: c.initial_ms,
        periods: c
            .periods
            .into_iter()
            .map(|p| Period {
                moves: p.moves,
                ms: p.ms,
            })
            .collect(),
        increment_ms: c.increment_ms,
        per_move_ms: c.per_move_ms,
        per_move_after_ms: c.per_move_after_ms,
    })
}

/// A rule option given by name, parsed, or refused naming its field and the value (quoted
/// short).
fn named_option<T>(
    value: Option<String>,
    field: &str,
    what: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Option<T>> {
    value
        .map(|t| {
            parse(&t).ok_or_else(|| {
                Error::invalid(
                    format!("header.rules.{field}"),
                    format!("unknown {what} {}", quote(&t)),
                )
            })
        })
        .transpose()
}

pub fn header_to_proto(h: &Header) -> proto::GameHeader {
    let r = &h.rules;
    proto::GameHeader {
        variant: h.variant.name().into(),
        id: h.id.clone(),
        start: h.start.clone().unwrap_or_default(),
        rules: Some(proto::RuleOptions {
            move_limit: r.move_limit,
            foul_limit: r.foul_limit,
            illegal_move: r.illegal_move.map(|p| p.as_str().into()),
            repetition_count: r.repetition_count,
            rule_set: r.rule_set.map(|s| s.as_str().into()),
            procedure: r.procedure.map(|p| p.as_str().into()),
            forbidden: r.forbidden.map(|p| p.as_str().into()),
            opening: r.opening.map(|o| o.to_string()),
            board_hold_ms: r.board_hold_ms,
            board_touch: r.board_touch.map(|p| p.as_str().into()),
        }),
        clock: h.clock.as_ref().map(|c| proto::ClockControl {
            initial_ms: c.initial_ms,
            periods: c
                .periods
                .iter()
                .map(|p| proto::Period {
                    moves: p.moves,
                    ms: p.ms,
                })
                .collect(),
            increment_ms: c.increment_ms,
            per_move_ms: c.per_move_ms,
            per_move_after_ms: c.per_move_after_ms,
        }),
        tags: h
            .tags
            .iter()
            .map(|(name, value)| proto::Tag {
                name: name.clone(),
                value: value.clone(),
            })
            .collect(),
    }
}

/// An event of a `variant` game from a request; `path` prefixes field names in errors.
pub fn event_from_proto(e: proto::Event, variant: Variant, path: &str) -> Result<Event> {
    let board = matches!(e.kind, Some(proto::event::Kind::Board(_)));
    let side = if board && e.side.is_empty() {
        Ok(Side::Board)
    } else {
        Side::parse(&e.side, variant).ok_or(())
    };
    let side = side.map_err(|()| {
        let [a, b] = variant.side_names();
        Error::invalid(
            format!("{path}.side"),
            format!(
                "unknown side {} for {variant} (expected {a}, {b} or arbiter)",
                quote(&e.side)
            ),
        )
    })?;
    let kind = e
        .kind
        .ok_or_else(|| Error::invalid(path, "the event has no kind (touch, move, reveal, ...)"))?;
    let kind = kind_from_proto(kind, variant, path)?;
    // The same checks as a log line's (shared with the interchange format), so a gRPC event
    // is refused exactly when the same line would be.
    check::side(&kind, side).map_err(|m| Error::invalid(format!("{path}.side"), m))?;
    Ok(Event {
        side,
        ts_ms: e.ts_ms,
        kind,
    })
}

/// A shared check's message as an error naming the request's field.
fn at(field: impl FnOnce() -> String) -> impl FnOnce(String) -> Error {
    move |message| Error::invalid(field(), message)
}

fn kind_from_proto(kind: proto::event::Kind, variant: Variant, path: &str) -> Result<EventKind> {
    use proto::event::Kind;
    let sq = |text: &str, field: &str| square(text, variant, &format!("{path}.{field}"));
    Ok(match kind {
        Kind::Touch(t) => EventKind::Touch {
            square: sq(&t.square, "touch.square")?,
            adjust: t.adjust,
        },
        Kind::Move(m) => move_from_proto(m, variant, path)?,
        Kind::Reveal(r) => {
            check::reveal(variant).map_err(at(|| format!("{path}.reveal")))?;
            EventKind::Reveal {
                square: sq(&r.square, "reveal.square")?,
                piece: check::revealed_piece(&r.piece)
                    .map_err(at(|| format!("{path}.reveal.piece")))?,
                promotion: r
                    .promotion
                    .map(|p| check::revealed_promotion(&p))
                    .transpose()
                    .map_err(at(|| format!("{path}.reveal.promotion")))?,
            }
        }
        Kind::Clock(c) => EventKind::Clock {
            first_ms: c.first_ms,
            second_ms: c.second_ms,
        },
        Kind::DrawOffer(_) => EventKind::DrawOffer,
        Kind::DrawReply(r) => EventKind::DrawReply { accept: r.accept },
        Kind::Claim(c) => EventKind::Claim {
            claim: ClaimKind::parse(&c.claim).ok_or_else(|| {
                Error::invalid(
                    format!("{path}.claim.claim"),
                    format!("unknown claim {}", quote(&c.claim)),
                )
            })?,
        },
        Kind::Resign(_) => EventKind::Resign,
        Kind::Arbiter(a) => arbiter_from_proto(a, variant, &format!("{path}.arbiter"))?,
        Kind::Board(b) => {
            check::placement(variant, &b.placement)
                .map_err(at(|| format!("{path}.board.placement")))?;
            if let Some(d) = &b.device {
                check::device(d).map_err(at(|| format!("{path}.board.device")))?;
            }
            EventKind::Board {
                placement: b.placement,
                device: b.device,
            }
        }
        Kind::Swap(_) => opening_from_proto(EventKind::Swap, variant, "swap", path)?,
        Kind::Declare(d) => opening_from_proto(
            EventKind::Declare { offers: d.offers },
            variant,
            "declare",
            path,
        )?,
        Kind::Offer(o) => {
            let field = format!("{path}.offer.points");
            check::opening_event(variant, "offer").map_err(at(|| format!("{path}.offer")))?;
            let points = o.points.iter().map(|p| square(p, variant, &field));
            let points = points.collect::<Result<Vec<_>>>()?;
            opening_from_proto(EventKind::Offer { points }, variant, "offer", path)?
        }
        Kind::Choose(c) => {
            check::opening_event(variant, "choose").map_err(at(|| format!("{path}.choose")))?;
            let to = square(&c.to, variant, &format!("{path}.choose.to"))?;
            opening_from_proto(EventKind::Choose { to }, variant, "choose", path)?
        }
    })
}

/// A renju opening step, checked as its log line is: the game, then its fields.
fn opening_from_proto(
    kind: EventKind,
    variant: Variant,
    name: &str,
    path: &str,
) -> Result<EventKind> {
    check::opening_event(variant, name).map_err(at(|| format!("{path}.{name}")))?;
    let field = match kind {
        EventKind::Declare { .. } => "offers",
        EventKind::Offer { .. } => "points",
        _ => "",
    };
    check::opening_fields(&kind).map_err(at(|| format!("{path}.{name}.{field}")))?;
    Ok(kind)
}

fn move_from_proto(m: proto::Move, variant: Variant, path: &str) -> Result<EventKind> {
    let sq = |text: &str, field: &str| square(text, variant, &format!("{path}.{field}"));
    if let Some(refusal) = check::placed(variant) {
        if !m.from.is_empty() {
            return Err(Error::invalid(format!("{path}.move.from"), refusal));
        }
        if m.promotion.is_some() || !m.captures.is_empty() {
            return Err(Error::invalid(
                format!("{path}.move"),
                format!("a {variant} move has only \"to\""),
            ));
        }
        return Ok(EventKind::Place {
            to: sq(&m.to, "move.to")?,
        });
    }
    let captures = if m.captures.is_empty() {
        None
    } else {
        check::captures(variant).map_err(at(|| format!("{path}.move.captures")))?;
        let squares = m.captures.iter().map(|c| sq(c, "move.captures"));
        Some(squares.collect::<Result<Vec<_>>>()?)
    };
    Ok(EventKind::Move {
        from: sq(&m.from, "move.from")?,
        to: sq(&m.to, "move.to")?,
        promotion: m
            .promotion
            .map(|p| check::promotion(variant, &p))
            .transpose()
            .map_err(at(|| format!("{path}.move.promotion")))?,
        captures,
    })
}

fn arbiter_from_proto(a: proto::ArbiterWord, variant: Variant, path: &str) -> Result<EventKind> {
    let decision = Decision::parse(&a.decision).ok_or_else(|| {
        Error::invalid(
            format!("{path}.decision"),
            format!("unknown decision {}", quote(&a.decision)),
        )
    })?;
    let result = a
        .result
        .map(|r| {
            GameResult::parse(&r).ok_or_else(|| {
                Error::invalid(
                    format!("{path}.result"),
                    format!("unknown result {}", quote(&r)),
                )
            })
        })
        .transpose()?;
    let moves = a
        .moves
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let path = format!("{path}.moves[{i}]");
            let event = event_from_proto(m, variant, &path)?;
            check::set_move(&event).map_err(at(|| path))?;
            Ok(event)
        })
        .collect::<Result<Vec<_>>>()?;
    check::arbiter(decision, a.ruling, result, &moves).map_err(at(|| path.to_string()))?;
    Ok(EventKind::Arbiter {
        decision,
        ruling: a.ruling,
        result,
        text: a.text,
        moves,
    })
}

fn square(text: &str, variant: Variant, field: &str) -> Result<Square> {
    Square::parse(variant, text).ok_or_else(|| {
        Error::invalid(
            field,
            format!(
                "square {} does not exist on the {variant} board",
                quote(text)
            ),
        )
    })
}

pub fn event_to_proto(e: &Event, variant: Variant) -> proto::Event {
    use proto::event::Kind;
    let sq = |s: &Square| s.to_string();
    let kind = match &e.kind {
        EventKind::Touch { square, adjust } => Kind::Touch(proto::Touch {
            square: sq(square),
            adjust: *adjust,
        }),
        EventKind::Place { to } => Kind::Move(proto::Move {
            from: String::new(),
            to: sq(to),
            promotion: None,
            captures: Vec::new(),
        }),
        EventKind::Move {
            from,
            to,
            promotion,
            captures,
        } => Kind::Move(proto::Move {
            from: sq(from),
            to: sq(to),
            promotion: promotion.map(String::from),
            captures: captures.iter().flatten().map(sq).collect(),
        }),
        EventKind::Reveal {
            square,
            piece,
            promotion,
        } => Kind::Reveal(proto::Reveal {
            square: sq(square),
            piece: piece.to_string(),
            promotion: promotion.map(String::from),
        }),
        EventKind::Clock {
            first_ms,
            second_ms,
        } => Kind::Clock(proto::ClockPress {
            first_ms: *first_ms,
            second_ms: *second_ms,
        }),
        EventKind::DrawOffer => Kind::DrawOffer(proto::DrawOffer {}),
        EventKind::DrawReply { accept } => Kind::DrawReply(proto::DrawReply { accept: *accept }),
        EventKind::Claim { claim } => Kind::Claim(proto::Claim {
            claim: claim.as_str().into(),
        }),
        EventKind::Resign => Kind::Resign(proto::Resign {}),
        EventKind::Arbiter {
            decision,
            ruling,
            result,
            text,
            moves,
        } => Kind::Arbiter(proto::ArbiterWord {
            decision: decision.as_str().into(),
            ruling: *ruling,
            result: result.map(|r| r.as_str().into()),
            text: text.clone(),
            moves: moves.iter().map(|m| event_to_proto(m, variant)).collect(),
        }),
        EventKind::Board { placement, device } => Kind::Board(proto::BoardReport {
            placement: placement.clone(),
            device: device.clone(),
        }),
        EventKind::Swap => Kind::Swap(proto::Swap {}),
        EventKind::Declare { offers } => Kind::Declare(proto::Declare { offers: *offers }),
        EventKind::Offer { points } => Kind::Offer(proto::Offer {
            points: points.iter().map(sq).collect(),
        }),
        EventKind::Choose { to } => Kind::Choose(proto::Choose { to: sq(to) }),
    };
    proto::Event {
        side: match e.side {
            Side::Board => String::new(),
            side => side.name(variant).into(),
        },
        ts_ms: e.ts_ms,
        kind: Some(kind),
    }
}

pub fn ruling_to_proto(r: &Ruling, variant: Variant) -> proto::Ruling {
    proto::Ruling {
        at: r.at,
        kind: r.kind.as_str().into(),
        side: r.side.map(|s| s.name(variant).into()),
        effect: r.effect.as_str().into(),
        result: r.result.map(|x| x.as_str().into()),
        rule: r.rule(),
        text: r.text.clone(),
        evidence: r.evidence.clone(),
        event: r
            .event
            .as_deref()
            .map(|e| crate::event::event_to_json(e, variant)),
    }
}

/// The clocks after the last press; `None` without a time control.
pub fn clock_to_proto(referee: &Referee) -> Option<proto::Clock> {
    let variant = referee.header().variant;
    referee.clock_times().map(|t| proto::Clock {
        first_ms: t.first_ms,
        second_ms: t.second_ms,
        running: if referee.ending().is_some() {
            String::new()
        } else {
            t.running.name(variant).into()
        },
    })
}

/// The board after the last event folded: position, side to move and clocks.
pub fn board_to_proto(referee: &Referee) -> proto::Board {
    let variant = referee.header().variant;
    proto::Board {
        seq: referee.last_seq(),
        fen: referee.fen(),
        side_to_move: referee.side_to_move().name(variant).into(),
        clock: clock_to_proto(referee),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(event: proto::Event, variant: Variant) -> String {
        event_from_proto(event, variant, "events[0].event")
            .expect_err("refused")
            .to_string()
    }

    fn with(side: &str, kind: proto::event::Kind) -> proto::Event {
        proto::Event {
            side: side.into(),
            ts_ms: None,
            kind: Some(kind),
        }
    }

    fn line_refusal(line: &str, variant: Variant) -> String {
        crate::event::event_from_json(line, variant, None).expect_err("refused")
    }

    #[test]
    fn an_event_is_refused_as_its_log_line_would_be_naming_the_field() {
        use proto::event::Kind;
        let promoted = Kind::Move(proto::Move {
            from: "a0".into(),
            to: "a1".into(),
            promotion: Some("q".into()),
            captures: vec![],
        });
        let line = r#"{"type":"move","side":"red","from":"a0","to":"a1","promotion":"q"}"#;
        let want = line_refusal(line, Variant::Xiangqi);
        assert_eq!(
            refusal(with("red", promoted), Variant::Xiangqi),
            format!("events[0].event.move.promotion: {want}")
        );
        let declare = Kind::Arbiter(proto::ArbiterWord {
            decision: "declare".into(),
            ..Default::default()
        });
        let line = r#"{"type":"arbiter","side":"arbiter","decision":"declare"}"#;
        let want = line_refusal(line, Variant::Xiangqi);
        assert_eq!(
            refusal(with("arbiter", declare), Variant::Xiangqi),
            format!("events[0].event.arbiter: {want}")
        );
        let resign = Kind::Resign(proto::Resign {});
        let line = r#"{"type":"resign","side":"arbiter"}"#;
        let want = line_refusal(line, Variant::Draughts);
        assert_eq!(
            refusal(with("arbiter", resign), Variant::Draughts),
            format!("events[0].event.side: {want}")
        );
    }

    #[test]
    fn a_valid_event_is_the_event_its_line_reads_as() {
        use proto::event::Kind;
        let capture = Kind::Move(proto::Move {
            from: "28".into(),
            to: "19".into(),
            promotion: None,
            captures: vec!["23".into()],
        });
        let event =
            event_from_proto(with("white", capture), Variant::Draughts, "e").expect("valid");
        let line = r#"{"type":"move","side":"white","from":28,"to":19,"captures":[23]}"#;
        let read = crate::event::event_from_json(line, Variant::Draughts, None).expect("line");
        assert_eq!(event, read);
    }
}
