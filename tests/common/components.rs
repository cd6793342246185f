//! What a test does when a component it needs (PostgreSQL, pg_autoctl, Chromium and its
//! driver) is not installed: under plain `cargo test` it says so loudly and passes, so a
//! machine with only the Rust toolchain can run every other test; under the README's test
//! command (`.ci/test` sets `REFEREE_REQUIRE_COMPONENTS=1`), which installs them first, it
//! fails, so a failed install cannot pass as a green run.

/// The variable that turns a missing component from a skipped test into a failed one.
pub const REQUIRE_COMPONENTS: &str = "REFEREE_REQUIRE_COMPONENTS";

/// Called by `test` when a component is missing; `why` says what is missing and how to
/// install it. Returns (the caller then returns, skipping the test) unless
/// `REFEREE_REQUIRE_COMPONENTS` is set to anything but `0` or nothing, in which case it panics
/// with the same words.
pub fn skip_or_fail(test: &str, why: &str) {
    skip_or_fail_when(required(), test, why);
}

fn required() -> bool {
    std::env::var(REQUIRE_COMPONENTS).is_ok_and(|v| !v.is_empty() && v != "0")
}

fn skip_or_fail_when(required: bool, test: &str, why: &str) {
    if required {
        panic!("{test}: {why} ({REQUIRE_COMPONENTS} is set: a missing component fails the test)");
    }
    eprintln!("\n*** SKIPPED {test}: {why} ***\n");
}

#[test]
fn a_missing_component_is_skipped_loudly_unless_required() {
    skip_or_fail_when(
        false,
        "components::example",
        "nothing is missing; this only prints",
    );
}

#[test]
#[should_panic(
    expected = "components::example: chromium not found; apt-get install chromium \
                           (REFEREE_REQUIRE_COMPONENTS is set"
)]
fn a_missing_component_fails_the_test_when_required() {
    skip_or_fail_when(
        true,
        "components::example",
        "chromium not found; apt-get install chromium",
    );
}
