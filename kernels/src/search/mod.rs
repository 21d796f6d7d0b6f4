//! POSITION / LOCATE / INSTR, LIKE, REPLACE and SPLIT_INDEX with Flink's
//! exact semantics.
//!
//! | function | Flink source followed | unit |
//! | --- | --- | --- |
//! | [`position`], [`locate`], [`instr`] | `BinaryStringData.indexOf`, `SqlFunctionUtils.position` / `instr` | characters by lead byte, byte matching |
//! | [`like`], [`LikePattern`] | `LikeCallGen`, `SqlLikeChainChecker`, `SqlLikeUtils.sqlToRegexLike` | bytes (quick path) / code points (regex path) |
//! | [`replace`] | `SqlFunctionUtils.replace` = Java `String.replace` | UTF-16 units (byte-exact on UTF-8) |
//! | [`split_index`] | `SqlFunctionUtils.splitIndex` (string or INT separator), commons-lang3 `splitByWholeSeparatorPreserveAllTokens` / `splitPreserveAllTokens` | UTF-16 String (byte-exact on UTF-8) |
//! | [`replace_java`], [`split_index_java`], [`like_java`] | the same, on values Flink still holds as Java Strings (unpaired surrogates) | UTF-16 units |
//!
//! Every argument is a `&dyn Datum`: an array (`Utf8`, `LargeUtf8`,
//! `Utf8View`; `Int32` for numbers) or a [`Scalar`](arrow_array::Scalar).
//! A string argument may also be `Binary`, `LargeBinary` or `BinaryView`:
//! the bytes of a string that nobody has checked to be UTF-8 (the C ABI
//! passes its string inputs so, to save a validation pass). Every kernel
//! reads strings as bytes (characters by Flink's lead-byte rule, each index
//! bounds-checked), so none needs UTF-8 to be memory-safe; POSITION /
//! LOCATE / INSTR and LIKE give `Int32` / `Boolean` whatever the bytes, and
//! REPLACE / SPLIT_INDEX, whose output is `Utf8`, then validate their
//! output rows (an invalid one is [`Error::InvalidUtf8`](crate::Error::InvalidUtf8)).
//! A LIKE pattern is decoded as text and always checked.
//! Any NULL argument gives NULL (`generateCallIfArgsNotNull`). The string
//! column is dispatched once per batch to a loop monomorphised for its
//! layout; a scalar needle / pattern / separator is compiled once per call
//! (a [`memchr::memmem::Finder`]) and nothing is allocated per row.

pub(crate) mod args;
mod java;
mod java_ops;
mod like;
mod position;
mod replace;
mod split;

pub use java::{like_java, replace_java, split_index_java, JavaStr, Utf16Values};
pub use java_ops::has_unpaired_surrogate;
pub use like::{like, like_with_escape, LikePattern};
pub use position::{instr, locate, position};
pub use replace::replace;
pub use split::split_index;
