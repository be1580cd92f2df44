// The API's JSON for streams: a StreamStatus rendered, and a PUT body read into a StreamSpec.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/stream_list/list_sync.hpp"
#include "pipeline/stream_spec/json_spec_fields.hpp"
#include "pipeline/streams/manager.hpp"

namespace fp::service {

// "2026-11-26T12:00:00.123Z".
std::string iso8601_utc(std::chrono::system_clock::time_point time);

// name, pipeline, uri (masked), source (api|list), state, since, frames, fps, dropped, latency {p50_ms, p99_ms, recent {p50_ms, p99_ms, seconds}},
// reconnects, last_error (null when none), outputs.
nlohmann::json stream_json(const StreamStatus& status);

// GET /v1/info's stream_list: path, listed, assigned, rejected {name: why}, error (null
// when the file's newest content is in force), read_at, reads_ok, reads_failed, restarts.
nlohmann::json stream_list_json(const StreamListStatus& list);

// GET /v1/info's capacity: {"budget": {RESOURCE: amount or null (unlimited)}, "used":
// {RESOURCE: amount}, "measured_cpu_cores"}; resources as capacity_resource_name() names them,
// cores, GPUs busy, bytes, streams.
nlohmann::json capacity_json(const ManagerInfo& info);

// The body of PUT /v1/streams/{name}: {"pipeline", "uri", "set": {"STAGE.PARAM": value},
// "decode": {"PARAM": value}}, read by read_stream_spec (pipeline/stream_spec/spec_reader.hpp: the
// rules a stream list and the state file share). A missing pipeline is `default_pipeline`.
// Throws HttpError 400 for text that is not JSON (the body is never quoted back: it holds the
// URI's password), and for whatever read_stream_spec refuses, naming the key.
StreamSpec stream_spec_from_json(const std::string& name, const std::string& body, const std::string& default_pipeline);

}  // namespace fp::service
