//! Expand constant int8 weights to f32 in an ONNX graph before tract sees it.
//!
//! `convert.rs` stores the int8 model as `DequantizeLinear(q, scale, zero, axis)` over
//! initializers: a 4× smaller download. tract keeps that node in the optimised plan and runs
//! it on every query (27.9 ms vs 4.3 ms per query natively). Replacing each such node with the
//! f32 initializer it computes gives the f32 graph's speed with the int8 file's size.
//!
//! Embedding tables are the exception: `DequantizeLinear` of the 30,522 × 384 word table
//! feeding a `Gather` made a 47 MB f32 tensor — folded at load, or (int8 kept) on every
//! query, which put the worker's isolate over 128 MB. [`gather_before_dequantize`] gathers
//! the int8 rows and their scales first and dequantizes only the rows a query reads.

use crate::EmbedError;
use std::collections::{HashMap, HashSet};
use tract_onnx::pb::{tensor_proto::DataType, GraphProto, NodeProto, TensorProto};

/// Elements of a tensor as f32 (from int8, uint8, int32 or float storage).
fn values(t: &TensorProto) -> Result<Vec<f32>, String> {
    let n: i64 = t.dims.iter().product();
    let n = usize::try_from(n).map_err(|_| format!("initializer {} has negative dimensions", t.name))?;
    let dt = t.data_type;
    let out: Vec<f32> = if dt == DataType::Int8 as i32 {
        if t.raw_data.is_empty() {
            t.int32_data.iter().map(|&v| v as f32).collect()
        } else {
            t.raw_data.iter().map(|&b| b as i8 as f32).collect()
        }
    } else if dt == DataType::Uint8 as i32 {
        if t.raw_data.is_empty() {
            t.int32_data.iter().map(|&v| v as f32).collect()
        } else {
            t.raw_data.iter().map(|&b| f32::from(b)).collect()
        }
    } else if dt == DataType::Float as i32 {
        if t.raw_data.is_empty() {
            t.float_data.clone()
        } else {
            t.raw_data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
        }
    } else {
        return Err(format!("initializer {} has data type {dt}, which DequantizeLinear folding does not handle", t.name));
    };
    if out.len() != n {
        return Err(format!("initializer {} holds {} values for dims {:?}", t.name, out.len(), t.dims));
    }
    Ok(out)
}

/// Every `DequantizeLinear` whose inputs are all initializers: its node index and inputs
/// (quantised values, scale, zero point if any).
fn constant_dequantize_nodes(graph: &GraphProto) -> Vec<(usize, Vec<&TensorProto>)> {
    let index: HashMap<&str, &TensorProto> = graph.initializer.iter().map(|t| (t.name.as_str(), t)).collect();
    graph
        .node
        .iter()
        .enumerate()
        .filter(|(_, n)| n.op_type == "DequantizeLinear" && n.input.len() >= 2 && n.output.len() == 1)
        .filter_map(|(ni, n)| Some((ni, n.input.iter().map(|name| index.get(name.as_str()).copied()).collect::<Option<Vec<_>>>()?)))
        .collect()
}

/// An integer attribute of a node, or its ONNX default.
fn int_attr(node: &NodeProto, name: &str, default: i64) -> i64 {
    node.attribute.iter().find(|a| a.name == name).map_or(default, |a| a.i)
}

/// Drop the initializers that no node and no graph output reads any more (the int8 inputs
/// of a fold, a rewrite's zero points): they would stay in memory for nothing.
fn drop_unused_initializers(graph: &mut GraphProto) {
    let used: HashSet<String> =
        graph.node.iter().flat_map(|n| n.input.iter()).chain(graph.output.iter().map(|o| &o.name)).cloned().collect();
    graph.initializer.retain(|t| used.contains(&t.name));
}

/// Rewrite `Gather(DequantizeLinear(q, s, z; axis 0), ids)` over constant tables into
/// `Cast(Gather(q, ids)) · Gather(s as a column, ids)`: the same values for the gathered rows,
/// with the table kept int8. Only tables with a zero point of 0 and one scale per row (or one
/// for the whole table), read by nothing but `Gather` along axis 0, are rewritten. Returns how
/// many tables were.
pub fn gather_before_dequantize(graph: &mut GraphProto) -> Result<usize, EmbedError> {
    // dq output → (dq node, q, s, one scale per row)
    let mut rewrites: HashMap<String, (usize, String, String, bool)> = HashMap::new();
    for (ni, inits) in constant_dequantize_nodes(graph) {
        let node = &graph.node[ni];
        let (q, scale) = (inits[0], inits[1]);
        if q.dims.len() != 2 {
            continue;
        }
        let n_scales: i64 = scale.dims.iter().product();
        let per_row = n_scales != 1 && n_scales == q.dims[0] && scale.dims.len() == 1 && int_attr(node, "axis", 1) == 0;
        if !(per_row || n_scales == 1) {
            continue;
        }
        if let Some(z) = inits.get(2) {
            if values(z)?.iter().any(|&v| v != 0.0) {
                continue;
            }
        }
        let out = &node.output[0];
        let consumers: Vec<&NodeProto> = graph.node.iter().filter(|n| n.input.iter().any(|i| i == out)).collect();
        let all_gathers = !consumers.is_empty()
            && consumers.iter().all(|n| {
                n.op_type == "Gather"
                    && n.input.len() == 2
                    && n.input[0] == *out
                    && n.input[1] != *out
                    && int_attr(n, "axis", 0) == 0
                    && n.output.len() == 1
            });
        if all_gathers && !graph.output.iter().any(|o| o.name == *out) {
            rewrites.insert(out.clone(), (ni, q.name.clone(), scale.name.clone(), per_row));
        }
    }
    if rewrites.is_empty() {
        return Ok(0);
    }
    // Per-row scales as a [rows, 1] column, so gathering them gives [.., 1]: it broadcasts
    // over the row without an Unsqueeze (whose form depends on the opset).
    for (_, _, scale, per_row) in rewrites.values_mut() {
        if *per_row {
            let col = format!("{scale}__sift_column");
            if !graph.initializer.iter().any(|t| t.name == col) {
                let src = graph.initializer.iter().find(|t| t.name == *scale).ok_or_else(|| format!("initializer {scale} vanished"))?;
                let v = values(src)?;
                graph.initializer.push(TensorProto {
                    name: col.clone(),
                    dims: vec![v.len() as i64, 1],
                    data_type: DataType::Float as i32,
                    raw_data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    ..Default::default()
                });
            }
            *scale = col;
        }
    }
    let dq_nodes: HashSet<usize> = rewrites.values().map(|r| r.0).collect();
    let op = |op_type: &str, input: Vec<String>, output: String, attribute: Vec<tract_onnx::pb::AttributeProto>| NodeProto {
        name: output.clone(),
        op_type: op_type.into(),
        input,
        output: vec![output],
        attribute,
        ..Default::default()
    };
    let int = |name: &str, i: i64| tract_onnx::pb::AttributeProto {
        name: name.into(),
        i,
        r#type: tract_onnx::pb::attribute_proto::AttributeType::Int as i32,
        ..Default::default()
    };
    let mut nodes = Vec::with_capacity(graph.node.len() + 4 * rewrites.len());
    for (ni, node) in std::mem::take(&mut graph.node).into_iter().enumerate() {
        if dq_nodes.contains(&ni) {
            continue;
        }
        let Some((_, q, scale, per_row)) = (node.op_type == "Gather").then(|| rewrites.get(&node.input[0])).flatten() else {
            nodes.push(node);
            continue;
        };
        let (ids, out) = (node.input[1].clone(), node.output[0].clone());
        let tmp = |suffix: &str| format!("{out}__sift_{suffix}");
        nodes.push(op("Gather", vec![q.clone(), ids.clone()], tmp("q"), vec![int("axis", 0)]));
        nodes.push(op("Cast", vec![tmp("q")], tmp("f"), vec![int("to", DataType::Float as i64)]));
        if *per_row {
            nodes.push(op("Gather", vec![scale.clone(), ids], tmp("s"), vec![int("axis", 0)]));
            nodes.push(op("Mul", vec![tmp("f"), tmp("s")], out, vec![]));
        } else {
            nodes.push(op("Mul", vec![tmp("f"), scale.clone()], out, vec![]));
        }
    }
    graph.node = nodes;
    drop_unused_initializers(graph);
    Ok(rewrites.len())
}

/// Replace every `DequantizeLinear` whose inputs are all initializers with its f32 result.
/// Returns how many nodes were folded.
pub fn fold_constant_dequantize(graph: &mut GraphProto) -> Result<usize, EmbedError> {
    let mut new_inits = Vec::new();
    let mut folded = HashSet::new();
    for (ni, inits) in constant_dequantize_nodes(graph) {
        let node = &graph.node[ni];
        let q = inits[0];
        let x = values(q)?;
        let scale = values(inits[1])?;
        let zero = match inits.get(2) {
            Some(z) => values(z)?,
            None => vec![0.0; scale.len()],
        };
        if zero.len() != scale.len() || scale.is_empty() {
            return Err(format!("DequantizeLinear {}: scale and zero point differ in length", node.name).into());
        }
        let dims: Vec<usize> = q.dims.iter().map(|&d| d as usize).collect();
        // Per-tensor (one scale) or per-axis (one scale per index along `axis`).
        let (stride, len) = if scale.len() == 1 {
            (1, 1)
        } else {
            let axis = int_attr(node, "axis", 1);
            let axis = if axis < 0 { axis + dims.len() as i64 } else { axis } as usize;
            if axis >= dims.len() || dims[axis] != scale.len() {
                return Err(format!("DequantizeLinear {}: {} scales for axis {axis} of {:?}", node.name, scale.len(), dims).into());
            }
            (dims[axis + 1..].iter().product::<usize>(), dims[axis])
        };
        let mut raw = Vec::with_capacity(x.len() * 4);
        for (i, v) in x.iter().enumerate() {
            let k = (i / stride) % len;
            raw.extend_from_slice(&((v - zero[k]) * scale[k]).to_le_bytes());
        }
        new_inits.push(TensorProto {
            name: node.output[0].clone(),
            dims: q.dims.clone(),
            data_type: DataType::Float as i32,
            raw_data: raw,
            ..Default::default()
        });
        folded.insert(ni);
    }
    if folded.is_empty() {
        return Ok(0);
    }
    let mut i = 0;
    graph.node.retain(|_| {
        i += 1;
        !folded.contains(&(i - 1))
    });
    // Without the int8 inputs nothing reads any more: half the peak memory in the browser.
    drop_unused_initializers(graph);
    graph.initializer.extend(new_inits);
    Ok(folded.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tract_onnx::pb::{AttributeProto, NodeProto, ValueInfoProto};

    fn init(name: &str, dims: &[i64], dt: DataType, raw: Vec<u8>) -> TensorProto {
        TensorProto { name: name.into(), dims: dims.to_vec(), data_type: dt as i32, raw_data: raw, ..Default::default() }
    }

    fn graph(axis: i64, scales: &[f32]) -> GraphProto {
        let q: Vec<u8> = [1i8, -2, 3, -4, 5, -6].iter().map(|&v| v as u8).collect();
        let s: Vec<u8> = scales.iter().flat_map(|v| v.to_le_bytes()).collect();
        let node = NodeProto {
            name: "dq".into(),
            op_type: "DequantizeLinear".into(),
            input: vec!["q".into(), "s".into(), "z".into()],
            output: vec!["w".into()],
            attribute: vec![AttributeProto { name: "axis".into(), i: axis, ..Default::default() }],
            ..Default::default()
        };
        let matmul =
            NodeProto { op_type: "MatMul".into(), input: vec!["x".into(), "w".into()], output: vec!["y".into()], ..Default::default() };
        GraphProto {
            node: vec![node, matmul],
            initializer: vec![
                init("q", &[2, 3], DataType::Int8, q),
                init("s", &[scales.len() as i64], DataType::Float, s),
                init("z", &[scales.len() as i64], DataType::Int8, vec![0; scales.len()]),
            ],
            output: vec![ValueInfoProto { name: "y".into(), ..Default::default() }],
            ..Default::default()
        }
    }

    fn floats(t: &TensorProto) -> Vec<f32> {
        values(t).unwrap()
    }

    #[test]
    fn per_axis_weights_fold_into_an_f32_initializer() {
        let mut g = graph(1, &[0.5, 1.0, 2.0]);
        assert_eq!(fold_constant_dequantize(&mut g).unwrap(), 1);
        assert_eq!(g.node.len(), 1, "only the MatMul is left");
        assert_eq!(g.initializer.len(), 1, "the int8 inputs are gone");
        let w = &g.initializer[0];
        assert_eq!((w.name.as_str(), w.dims.as_slice()), ("w", &[2i64, 3][..]));
        assert_eq!(floats(w), vec![0.5, -2.0, 6.0, -2.0, 5.0, -12.0]);

        let mut g = graph(0, &[0.5, 2.0]);
        fold_constant_dequantize(&mut g).unwrap();
        assert_eq!(floats(&g.initializer[0]), vec![0.5, -1.0, 1.5, -8.0, 10.0, -12.0]);
    }

    #[test]
    fn an_embedding_table_is_gathered_before_it_is_dequantized() {
        use tract_onnx::prelude::*;
        // Table [3, 2] int8, one scale per row; output = Gather(dq(table), ids).
        let q: Vec<u8> = [1i8, -2, 3, -4, 5, -6].iter().map(|&v| v as u8).collect();
        let s: Vec<u8> = [0.5f32, 1.0, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let dq = NodeProto {
            name: "dq".into(),
            op_type: "DequantizeLinear".into(),
            input: vec!["q".into(), "s".into(), "z".into()],
            output: vec!["w".into()],
            attribute: vec![AttributeProto { name: "axis".into(), i: 0, r#type: 2, ..Default::default() }],
            ..Default::default()
        };
        let gather = NodeProto {
            name: "g".into(),
            op_type: "Gather".into(),
            input: vec!["w".into(), "ids".into()],
            output: vec!["y".into()],
            attribute: vec![AttributeProto { name: "axis".into(), i: 0, r#type: 2, ..Default::default() }],
            ..Default::default()
        };
        let mut g = GraphProto {
            node: vec![dq, gather],
            initializer: vec![
                init("q", &[3, 2], DataType::Int8, q),
                init("s", &[3], DataType::Float, s),
                init("z", &[3], DataType::Int8, vec![0; 3]),
            ],
            input: vec![ValueInfoProto {
                name: "ids".into(),
                r#type: Some(tract_onnx::pb::TypeProto {
                    value: Some(tract_onnx::pb::type_proto::Value::TensorType(tract_onnx::pb::type_proto::Tensor {
                        elem_type: DataType::Int64 as i32,
                        shape: None,
                    })),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            output: vec![ValueInfoProto { name: "y".into(), ..Default::default() }],
            ..Default::default()
        };
        assert_eq!(gather_before_dequantize(&mut g).unwrap(), 1);
        assert!(g.node.iter().all(|n| n.op_type != "DequantizeLinear"));
        assert!(g.initializer.iter().any(|t| t.name == "q" && t.data_type == DataType::Int8 as i32), "the table stays int8");
        let model = tract_onnx::onnx()
            .model_for_proto_model(&tract_onnx::pb::ModelProto {
                graph: Some(g),
                opset_import: vec![tract_onnx::pb::OperatorSetIdProto { domain: String::new(), version: 13 }],
                ..Default::default()
            })
            .unwrap()
            .with_input_names(["ids"])
            .unwrap()
            .with_input_fact(0, InferenceFact::dt_shape(i64::datum_type(), [2]))
            .unwrap()
            .into_optimized()
            .unwrap()
            .into_runnable()
            .unwrap();
        let ids = Tensor::from_shape(&[2], &[2i64, 0]).unwrap();
        let out = model.run(tvec!(ids.into_tvalue())).unwrap();
        let y: Vec<f32> = out[0].to_plain_array_view::<f32>().unwrap().iter().copied().collect();
        assert_eq!(y, vec![10.0, -12.0, 0.5, -1.0], "rows 2 and 0, each times its scale");
    }

    #[test]
    fn inconsistent_scales_are_an_error_not_a_panic() {
        let mut g = graph(1, &[0.5, 1.0]);
        assert!(fold_constant_dequantize(&mut g).unwrap_err().0.contains("2 scales for axis 1"));
        let mut g = graph(7, &[0.5, 1.0, 2.0]);
        assert!(fold_constant_dequantize(&mut g).is_err());
    }
}
