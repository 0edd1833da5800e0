// The Sift worker: the engine core alone (fits the free plan's 3 MB script limit). Bundles
// built with vectors answer semantic and hybrid queries with their own static query
// encoder — a lookup per token, no model in the worker.
import coreWasm from "../../www/dist/sift_wasm_full_bg.wasm"; // explain and MCP's multi_search
import { makeApp } from "./app.js";

export default makeApp({ coreWasm });
