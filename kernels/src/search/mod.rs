//! POSITION / LOCATE / INSTR, LIKE, REPLACE and SPLIT_INDEX with Flink's
//! exact semantics.
//!
//! | function | Flink source followed | unit |
//! | --- | --- | --- |
//! | [`position`], [`locate`], [`instr`] | `BinaryStringData.indexOf`, `SqlFunctionUtils.position` / `instr` | characters by lead byte, byte matching |
//! | [`like`], [`LikePattern`] | `LikeCallGen`, `SqlLikeChainChecker`, `SqlLikeUtils.sqlToRegexLike` | bytes (quick path) / code points (regex path) |
//! | [`replace`] | `SqlFunctionUtils.replace` = Java `String.replace` | UTF-16 units (byte-exact on UTF-8) |
//! | [`split_index`] | `SqlFunctionUtils.splitIndex`, commons-lang3 `splitByWholeSeparatorPreserveAllTokens` | UTF-16 String (byte-exact on UTF-8) |
//!
//! Every argument is a `&dyn Datum`: an array (`Utf8`, `LargeUtf8`,
//! `Utf8View`; `Int32` for numbers) or a [`Scalar`](arrow_array::Scalar).
//! Any NULL argument gives NULL (`generateCallIfArgsNotNull`). The string
//! column is dispatched once per batch to a loop monomorphised for its
//! layout; a scalar needle / pattern / separator is compiled once per call
//! (a [`memchr::memmem::Finder`]) and nothing is allocated per row.

pub(crate) mod args;
mod like;
mod position;
mod replace;
mod split;

pub use like::{like, LikePattern};
pub use position::{instr, locate, position};
pub use replace::replace;
pub use split::split_index;
