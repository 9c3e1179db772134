// The harness's JSON values and parser live in StrictJSON, shared with the
// datastore; its users keep reaching them through this module.
@_exported import StrictJSON
