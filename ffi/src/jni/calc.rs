//! `io.sluice.jni.CalcNative`: the Calc operator's projection list
//! (MD5, SHA1, SHA2, CONCAT, CONCAT_WS, search functions) over a batch of
//! rows.
