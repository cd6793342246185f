//! A token's expiry: when it stops being accepted, written by the operator as a date (the end
//! of that day, UTC) or an RFC 3339 timestamp, and shown back as an RFC 3339 timestamp.
//!
//! Civil dates are converted to days since 1970-01-01 by hand (the proleptic Gregorian
//! calendar, in 400-year eras of 146,097 days): two small functions instead of a date crate.

use thiserror::Error;

const MS_PER_DAY: i64 = 86_400_000;
/// Days in a 400-year era of the Gregorian calendar.
const ERA_DAYS: i64 = 146_097;
/// Days from 0000-03-01 to 1970-01-01.
const EPOCH_SHIFT: i64 = 719_468;

/// Why an `--expires` value was refused.
#[derive(Debug, Error, PartialEq)]
pub enum ExpiryError {
    /// Neither `YYYY-MM-DD` nor an RFC 3339 timestamp.
    #[error(
        "--expires \"{0}\" is not a date (2026-12-31, the end of that day UTC) or an RFC 3339 \
         timestamp (2026-12-31T18:00:00Z, 2026-12-31T18:00:00+01:00)"
    )]
    Malformed(String),
    /// Well formed, but a field is out of range (month 13, 31 April, hour 24).
    #[error("--expires \"{value}\": {field} {number} does not exist")]
    OutOfRange {
        value: String,
        field: &'static str,
        number: u32,
    },
    /// Before 1970 or after 9999.
    #[error("--expires \"{0}\" is outside the years 1970 to 9999")]
    Year(String),
    /// The moment has passed already.
    #[error("--expires \"{value}\" has passed already (it is {now} now)")]
    Past { value: String, now: String },
}

/// When a token stops being accepted: `value`, checked against `now_ms`, in milliseconds
/// since 1970. A date means the end of that day UTC, so the token is refused from the next
/// midnight on.
pub fn parse(value: &str, now_ms: u64) -> Result<u64, ExpiryError> {
    let ms = if value.len() == 10 {
        let days = date(value, value)?;
        (days + 1) * MS_PER_DAY
    } else {
        timestamp(value)?
    };
    // Before 1970 (an early date with an offset), or past 9999 (the end of its last day).
    let end = days_from_civil(10_000, 1, 1) * MS_PER_DAY;
    let ms = u64::try_from(ms)
        .ok()
        .filter(|_| ms < end)
        .ok_or_else(|| ExpiryError::Year(value.into()))?;
    if ms <= now_ms {
        return Err(ExpiryError::Past {
            value: value.into(),
            now: render(now_ms),
        });
    }
    Ok(ms)
}

/// `ms` since 1970 as an RFC 3339 timestamp in UTC, to the second (to the millisecond if it
/// has any).
pub fn render(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    let (days, in_day) = (ms.div_euclid(MS_PER_DAY), ms.rem_euclid(MS_PER_DAY));
    let (y, m, d) = civil(days);
    let (secs, milli) = (in_day / 1000, in_day % 1000);
    let (h, min, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let frac = if milli == 0 {
        String::new()
    } else {
        format!(".{milli:03}")
    };
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}{frac}Z")
}

/// `YYYY-MM-DD` as days since 1970-01-01.
fn date(text: &str, value: &str) -> Result<i64, ExpiryError> {
    let malformed = || ExpiryError::Malformed(value.into());
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(malformed());
    }
    let year = number(&text[0..4]).ok_or_else(malformed)?;
    let month = number(&text[5..7]).ok_or_else(malformed)?;
    let day = number(&text[8..10]).ok_or_else(malformed)?;
    if !(1970..=9999).contains(&year) {
        return Err(ExpiryError::Year(value.into()));
    }
    let range = |field, number| ExpiryError::OutOfRange {
        value: value.into(),
        field,
        number,
    };
    if !(1..=12).contains(&month) {
        return Err(range("month", month));
    }
    if day == 0 || day > month_days(year, month) {
        return Err(range("day", day));
    }
    Ok(days_from_civil(year, month, day))
}

/// An RFC 3339 timestamp (`2026-12-31T18:00:00Z`, a fraction of a second, `+01:00`) as
/// milliseconds since 1970; may be negative before the offset is applied to an early date.
fn timestamp(value: &str) -> Result<i64, ExpiryError> {
    let malformed = || ExpiryError::Malformed(value.into());
    if !value.is_char_boundary(10) || !value.is_char_boundary(19) || value.len() < 20 {
        return Err(malformed());
    }
    let days = date(&value[..10], value)?;
    let b = value.as_bytes();
    if !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return Err(malformed());
    }
    let field = |range: std::ops::Range<usize>, name, max| {
        let n = number(&value[range]).ok_or_else(malformed)?;
        if n > max {
            return Err(ExpiryError::OutOfRange {
                value: value.into(),
                field: name,
                number: n,
            });
        }
        Ok(i64::from(n))
    };
    let h = field(11..13, "hour", 23)?;
    let m = field(14..16, "minute", 59)?;
    let s = field(17..19, "second", 59)?;
    let (milli, zone) = fraction(&value[19..]).ok_or_else(malformed)?;
    let offset = match zone {
        "Z" | "z" => 0,
        _ => zone_offset(zone).ok_or_else(malformed)?,
    };
    Ok(days * MS_PER_DAY + ((h * 60 + m) * 60 + s) * 1000 + milli - offset * 60_000)
}

/// An optional `.fff…` fraction of a second (milliseconds, further digits dropped) and what
/// follows it.
fn fraction(rest: &str) -> Option<(i64, &str)> {
    let Some(digits) = rest.strip_prefix('.') else {
        return Some((0, rest));
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    let milli = digits[..end.min(3)]
        .chars()
        .chain(std::iter::repeat('0'))
        .take(3)
        .collect::<String>();
    Some((milli.parse().ok()?, &digits[end..]))
}

/// `+HH:MM` or `-HH:MM` as minutes east of UTC.
fn zone_offset(zone: &str) -> Option<i64> {
    let b = zone.as_bytes();
    if b.len() != 6 || b[3] != b':' {
        return None;
    }
    let sign = match b[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (h, m) = (number(&zone[1..3])?, number(&zone[4..6])?);
    (h <= 23 && m <= 59).then(|| sign * i64::from(h * 60 + m))
}

/// All ASCII digits as a number; None otherwise.
fn number(digits: &str) -> Option<u32> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn month_days(year: u32, month: u32) -> u32 {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a Gregorian date. The year is counted from March, so that the
/// leap day falls at the end of it and each month's first day is a linear formula.
fn days_from_civil(year: u32, month: u32, day: u32) -> i64 {
    let (year, month, day) = (i64::from(year), i64::from(month), i64::from(day));
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let march_month = (month + 9) % 12;
    let day_of_year = (153 * march_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * ERA_DAYS + day_of_era - EPOCH_SHIFT
}

/// The Gregorian date of a day counted from 1970-01-01: the inverse of `days_from_civil`.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + EPOCH_SHIFT;
    let era = z.div_euclid(ERA_DAYS);
    let day_of_era = z - era * ERA_DAYS;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let march_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * march_month + 2) / 5 + 1;
    let month = if march_month < 10 {
        march_month + 3
    } else {
        march_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-05T00:00:00Z.
    const NOW: u64 = 1_796_428_800_000;

    #[test]
    fn a_date_expires_at_the_end_of_that_day_utc() {
        assert_eq!(render(NOW), "2026-12-05T00:00:00Z");
        let end = parse("2026-12-31", NOW).expect("date");
        assert_eq!(render(end), "2027-01-01T00:00:00Z");
        assert_eq!(
            render(parse("2028-02-29", NOW).expect("leap")),
            "2028-03-01T00:00:00Z"
        );
        assert_eq!(
            parse("2026-12-05", NOW),
            Ok(NOW + 86_400_000),
            "today lasts"
        );
    }

    #[test]
    fn timestamps_honour_fractions_and_offsets() {
        let utc = parse("2026-12-31T18:00:00Z", NOW).expect("utc");
        assert_eq!(render(utc), "2026-12-31T18:00:00Z");
        assert_eq!(parse("2026-12-31T19:00:00+01:00", NOW), Ok(utc));
        assert_eq!(parse("2026-12-31t17:30:00-00:30", NOW), Ok(utc));
        let frac = parse("2026-12-31T18:00:00.25Z", NOW).expect("fraction");
        assert_eq!(
            (frac - utc, render(frac)),
            (250, "2026-12-31T18:00:00.250Z".into())
        );
        assert_eq!(parse("2026-12-31T18:00:00.1239Z", NOW), Ok(utc + 123));
    }

    #[test]
    fn days_round_trip_across_centuries_and_leap_years() {
        for days in [0, 59, 60, 365, 10_957, 11_016, 20_792, 2_932_896] {
            let (y, m, d) = civil(days);
            let back = days_from_civil(
                u32::try_from(y).expect("year"),
                u32::try_from(m).expect("month"),
                u32::try_from(d).expect("day"),
            );
            assert_eq!(back, days, "{y}-{m}-{d}");
        }
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert_eq!(civil(2_932_896), (9999, 12, 31));
    }

    #[test]
    fn bad_values_are_refused_naming_the_field() {
        let err = |v: &str| parse(v, NOW).expect_err(v).to_string();
        assert!(err("31/12/2026").contains("is not a date"));
        assert!(err("2026-12-31T18:00").contains("is not a date"));
        assert!(
            err("2026-12-31T18:00:00").contains("is not a date"),
            "no zone"
        );
        assert!(err("2026-12-31T18:00:00+0100").contains("is not a date"));
        assert!(err("2026-12-31T18:00:00.Z").contains("is not a date"));
        assert!(err("2026-1２-31").contains("is not a date"));
        assert_eq!(
            err("2026-13-01"),
            "--expires \"2026-13-01\": month 13 does not exist"
        );
        assert_eq!(
            err("2027-02-29"),
            "--expires \"2027-02-29\": day 29 does not exist"
        );
        assert_eq!(
            err("2026-04-31"),
            "--expires \"2026-04-31\": day 31 does not exist"
        );
        assert!(err("2026-12-31T24:00:00Z").contains("hour 24 does not exist"));
        assert!(err("2026-12-31T23:60:00Z").contains("minute 60 does not exist"));
        assert!(err("1969-12-31").contains("outside the years"));
        assert!(
            err("9999-12-31").contains("outside the years"),
            "ends in 10000"
        );
        assert_eq!(
            render(parse("9999-12-30", NOW).expect("last")),
            "9999-12-31T00:00:00Z"
        );
        assert_eq!(
            err("2026-12-04"),
            "--expires \"2026-12-04\" has passed already (it is 2026-12-05T00:00:00Z now)"
        );
        assert!(err("2026-12-04T23:59:59Z").contains("has passed already"));
    }
}
