// Hybrid worker: the engine core plus the query embedder (tract in wasm); the model itself
// (model/model.onnx, int8) is read from the bundle in static assets on first use.
import coreWasm from "../../www/dist/sift_wasm_bg.wasm";
import embedWasm from "../../www/dist/sift_embed_wasm_bg.wasm";
import { makeApp } from "./app.js";

export default makeApp({ coreWasm, embedWasm });
