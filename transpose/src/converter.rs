//! [`RowConverter`]: everything derived once per schema.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::layout::fixed_part_size;
use crate::types::{FlinkType, TypeKind};

/// One node of the schema tree: a type, where it sits (for error messages)
/// and its children (ROW fields, ARRAY element, MAP key and value).
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub ty: FlinkType,
    pub path: String,
    pub arrow: DataType,
    pub children: Vec<Node>,
}

impl Node {
    pub(crate) fn new(ty: FlinkType, path: String) -> Result<Node> {
        ty.validate().map_err(|e| Error::Unsupported(format!("field {path}: {e}")))?;
        let arrow = ty.to_arrow_type();
        let children = match &ty.kind {
            TypeKind::Array(e) => vec![Node::new((**e).clone(), format!("{path}.element"))?],
            TypeKind::Map(k, v) => vec![
                Node::new((**k).clone(), format!("{path}.key"))?,
                Node::new((**v).clone(), format!("{path}.value"))?,
            ],
            TypeKind::Row(fs) => {
                fs.iter().map(|f| Node::new(f.ty.clone(), format!("{path}.{}", f.name))).collect::<Result<Vec<_>>>()?
            }
            _ => Vec::new(),
        };
        Ok(Node { ty, path, arrow, children })
    }

    #[inline(always)]
    pub(crate) fn width(&self) -> usize {
        self.ty.array_element_width()
    }
}

/// Converts between Flink `BinaryRowData` rows and Arrow `RecordBatch`es of
/// one schema. Build it once per schema and reuse it for every batch (it
/// holds the Flink type of every field, the output Arrow schema with
/// `flink.type` metadata and the row fixed-part size).
///
/// ```
/// use std::sync::Arc;
/// use arrow_schema::{DataType, Field, Schema};
/// use sluice_transpose::{RowConverter, NullLayout};
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("id", DataType::Int64, false),
///     Field::new("name", DataType::Utf8, true),
/// ]));
/// let conv = RowConverter::new(schema).unwrap();
/// // one row: id = 7, name = 'hello' (inline: ≤ 7 bytes)
/// let row: Vec<u8> = [
///     [0u8; 8],
///     7i64.to_le_bytes(),
///     [b'h', b'e', b'l', b'l', b'o', 0, 0, 0x85],
/// ].concat();
/// let (batch, kinds) = conv.rows_to_batch(&row, &[0, row.len() as i64]).unwrap();
/// assert_eq!(batch.num_rows(), 1);
/// let rows = conv.batch_to_rows(&batch, Some(&kinds), NullLayout::Serializer).unwrap();
/// assert_eq!(rows.row(0), &row[..]);
/// ```
#[derive(Debug, Clone)]
pub struct RowConverter {
    pub(crate) fields: Vec<Node>,
    pub(crate) schema: SchemaRef,
    pub(crate) fixed_size: usize,
    pub(crate) sizing: ValuesSizing,
    /// Whether the flat fast paths run (entry: `entry::flat`, exit:
    /// `exit::flat`); off only to compare them with the general paths.
    pub(crate) flat: bool,
}

/// How the entry transpose sizes string / binary value buffers.
// Only the default is reachable without `public_imp`.
#[cfg_attr(not(feature = "public_imp"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValuesSizing {
    /// A first pass over the slots sums the lengths; buffers are allocated
    /// exactly once.
    ExactPass,
    /// Buffers start small and grow geometrically (`Vec` doubling).
    Geometric,
}

impl RowConverter {
    /// Builds a converter for `schema`. Each field's Flink type comes from
    /// its `flink.type` metadata when present, else from its Arrow type (see
    /// the crate docs).
    ///
    /// # Errors
    /// [`Error::Unsupported`] / [`Error::TypeParse`] for a field with no
    /// Flink counterpart or bad metadata.
    pub fn new(schema: SchemaRef) -> Result<Self> {
        let types = schema.fields().iter().map(|f| FlinkType::from_arrow_field(f)).collect::<Result<Vec<_>>>()?;
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        Self::from_flink_types(&names, &types)
    }

    /// Builds a converter from Flink types directly.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for out-of-range precisions / lengths, or when
    /// `names` and `types` differ in length.
    pub fn from_flink_types(names: &[&str], types: &[FlinkType]) -> Result<Self> {
        if names.len() != types.len() {
            return Err(Error::InvalidArgument(format!("{} names for {} types", names.len(), types.len())));
        }
        let fields =
            names.iter().zip(types).map(|(n, t)| Node::new(t.clone(), (*n).to_string())).collect::<Result<Vec<_>>>()?;
        let schema = Arc::new(Schema::new(
            names.iter().zip(types).map(|(n, t)| t.to_arrow_field_with_metadata(n)).collect::<Vec<Field>>(),
        ));
        Ok(RowConverter {
            fixed_size: fixed_part_size(fields.len()),
            fields,
            schema,
            sizing: ValuesSizing::ExactPass,
            flat: true,
        })
    }

    /// The Arrow schema of batches the entry transpose produces: Flink's
    /// Arrow mapping, every field carrying `flink.type` metadata.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The Flink type of every field.
    pub fn flink_types(&self) -> impl Iterator<Item = &FlinkType> {
        self.fields.iter().map(|n| &n.ty)
    }

    /// Number of fields (the row arity).
    pub fn arity(&self) -> usize {
        self.fields.len()
    }

    /// Bytes of a row's fixed part (header, null bits, slots).
    pub fn fixed_part_size(&self) -> usize {
        self.fixed_size
    }

    /// Approximate heap size of the converter in bytes (as `arrow-row`'s
    /// `RowConverter::size`).
    pub fn size(&self) -> usize {
        fn node(n: &Node) -> usize {
            std::mem::size_of::<Node>() + n.path.len() + n.children.iter().map(node).sum::<usize>()
        }
        std::mem::size_of::<Self>() + self.fields.iter().map(node).sum::<usize>()
    }

    /// Turns the flat fast paths off (`false`) or on (the default), for
    /// benchmarks and differential tests: the general paths must give the
    /// same batches and bytes.
    #[cfg(feature = "public_imp")]
    pub fn with_flat_paths(mut self, on: bool) -> Self {
        self.flat = on;
        self
    }

    /// Chooses the value-buffer sizing strategy (for benchmarks).
    #[cfg(feature = "public_imp")]
    pub fn with_values_sizing(mut self, sizing: ValuesSizing) -> Self {
        self.sizing = sizing;
        self
    }
}
