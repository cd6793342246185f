pub mod square;
pub use square::Square;
