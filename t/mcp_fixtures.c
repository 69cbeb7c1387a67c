/*
 * mcp_fixtures.c: the fixture tools, resources and prompts the official
 * MCP conformance suite (@modelcontextprotocol/conformance) calls by
 * name (test_simple_text, test://static-text, test_simple_prompt...).
 *
 * Test code: linked only into t/slipway-mcp-conformance, the test build
 * of cgi/mcp.c (SW_MCP_EXTRAS names sw_mcp_conformance_fixtures), which
 * t/34 runs in place of slipway-mcp.  The product never carries them,
 * and t/30 checks that it lists none.  Each answers exactly what the
 * suite's scenario text asks for.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/json.h"
#include "mcp/mcp.h"

/* A 1x1 red PNG and a silent 8-sample WAV. */
static const char png_1x1[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
    "HwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
static const char wav_tiny[] =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAA"
    "AAAAAAAAAAAAAAAAAAAA";

static const struct {
	const char *name;
	const char *desc;
} fixture_tools[] = {
	{ "test_simple_text", "Returns a simple text." },
	{ "test_image_content", "Returns an image." },
	{ "test_audio_content", "Returns audio." },
	{ "test_embedded_resource", "Returns an embedded resource." },
	{ "test_multiple_content_types",
	    "Returns text, image and a "
	    "resource." },
	{ "test_tool_with_logging", "Sends three log messages." },
	{ "test_tool_with_progress", "Sends three progress steps." },
	{ "test_error_handling", "Always fails." },
	{ "json_schema_2020_12_tool",
	    "Tool with JSON Schema 2020-12 "
	    "features" },
};

static json_object *
text_block(const char *text)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "type", "text");
	sw_json_add_str(o, "text", text);
	return o;
}

static json_object *
media_block(const char *type, const char *data, const char *mime)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "type", type);
	sw_json_add_str(o, "data", data);
	sw_json_add_str(o, "mimeType", mime);
	return o;
}

static json_object *
resource_block(const char *uri, const char *mime, const char *text)
{
	json_object *o = json_object_new_object(), *r;

	r = json_object_new_object();
	sw_json_add_str(r, "uri", uri);
	sw_json_add_str(r, "mimeType", mime);
	sw_json_add_str(r, "text", text);
	sw_json_add_str(o, "type", "resource");
	json_object_object_add(o, "resource", r);
	return o;
}

static json_object *
schema_2020_12(void)
{
	const char *text =
	    "{\"$schema\":"
	    "\"https://json-schema.org/draft/2020-12/schema\","
	    "\"type\":\"object\",\"$defs\":{\"address\":{\"type\":\"object\","
	    "\"properties\":{\"street\":{\"type\":\"string\"},\"city\":"
	    "{\"type\":\"string\"}}}},\"properties\":{\"name\":{\"type\":"
	    "\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"}},"
	    "\"additionalProperties\":false}";

	return json_tokener_parse(text);
}

static int
fixture_is_tool(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(fixture_tools) / sizeof(fixture_tools[0]); i++)
		if (strcmp(fixture_tools[i].name, name) == 0)
			return 1;
	return 0;
}

static void
fixture_tools_list(json_object *arr)
{
	json_object *t, *s;
	size_t i;

	for (i = 0; i < sizeof(fixture_tools) / sizeof(fixture_tools[0]); i++) {
		t = json_object_new_object();
		sw_json_add_str(t, "name", fixture_tools[i].name);
		sw_json_add_str(t, "description", fixture_tools[i].desc);
		if (strcmp(fixture_tools[i].name, "json_schema_2020_12_tool") ==
		    0)
			s = schema_2020_12();
		else {
			s = json_object_new_object();
			sw_json_add_str(s, "type", "object");
		}
		json_object_object_add(t, "inputSchema", s);
		json_object_array_add(arr, t);
	}
}

static json_object *
fixture_result(const char *name)
{
	json_object *r = json_object_new_object(), *c;

	c = json_object_new_array();
	if (strcmp(name, "test_simple_text") == 0)
		json_object_array_add(c,
		    text_block("This is a simple text "
			       "response for testing."));
	else if (strcmp(name, "test_image_content") == 0)
		json_object_array_add(
		    c, media_block("image", png_1x1, "image/png"));
	else if (strcmp(name, "test_audio_content") == 0)
		json_object_array_add(
		    c, media_block("audio", wav_tiny, "audio/wav"));
	else if (strcmp(name, "test_embedded_resource") == 0)
		json_object_array_add(c,
		    resource_block("test://embedded-resource", "text/plain",
			"This is an embedded resource content."));
	else if (strcmp(name, "test_multiple_content_types") == 0) {
		json_object_array_add(c,
		    text_block("Multiple content types "
			       "test:"));
		json_object_array_add(
		    c, media_block("image", png_1x1, "image/png"));
		json_object_array_add(c,
		    resource_block("test://mixed-content-resource",
			"application/json",
			"{\"test\":\"data\",\"value\":123}"));
	} else if (strcmp(name, "test_error_handling") == 0) {
		json_object_array_add(c,
		    text_block("This tool intentionally "
			       "returns an error for testing"));
		sw_json_add_bool(r, "isError", 1);
	} else
		json_object_array_add(c,
		    text_block("Tool executed "
			       "successfully"));
	json_object_object_add(r, "content", c);
	return r;
}

static void
fixture_resources(json_object *arr, int templates)
{
	static const char *const uris[][3] = {
		{ "test://static-text", "static-text", "text/plain" },
		{ "test://static-binary", "static-binary", "image/png" },
		{ "test://watched-resource", "watched-resource", "text/plain" },
	};
	json_object *o;
	size_t i;

	if (templates) {
		o = json_object_new_object();
		sw_json_add_str(o, "uriTemplate", "test://template/{id}/data");
		sw_json_add_str(o, "name", "template");
		sw_json_add_str(o, "mimeType", "application/json");
		json_object_array_add(arr, o);
		return;
	}
	for (i = 0; i < sizeof(uris) / sizeof(uris[0]); i++) {
		o = json_object_new_object();
		sw_json_add_str(o, "uri", uris[i][0]);
		sw_json_add_str(o, "name", uris[i][1]);
		sw_json_add_str(o, "mimeType", uris[i][2]);
		json_object_array_add(arr, o);
	}
}

static json_object *
fixture_read(const char *uri)
{
	json_object *res, *arr, *o;
	char id[64], text[256];
	size_t n;

	if (strncmp(uri, "test://", 7) != 0)
		return NULL;
	o = json_object_new_object();
	sw_json_add_str(o, "uri", uri);
	if (strcmp(uri, "test://static-text") == 0 ||
	    strcmp(uri, "test://watched-resource") == 0) {
		sw_json_add_str(o, "mimeType", "text/plain");
		sw_json_add_str(o, "text",
		    "This is the content of the static "
		    "text resource.");
	} else if (strcmp(uri, "test://static-binary") == 0) {
		sw_json_add_str(o, "mimeType", "image/png");
		sw_json_add_str(o, "blob", png_1x1);
	} else if (strncmp(uri, "test://template/", 16) == 0 &&
	    (n = strcspn(uri + 16, "/")) > 0 && n < sizeof(id) &&
	    strspn(uri + 16, "0123456789abcdefghijklmnopqrstuvwxyz") == n &&
	    strcmp(uri + 16 + n, "/data") == 0) {
		memcpy(id, uri + 16, n);
		id[n] = '\0';
		snprintf(text, sizeof(text),
		    "{\"id\":\"%s\",\"templateTest\":"
		    "true,\"data\":\"Data for ID: %s\"}",
		    id, id);
		sw_json_add_str(o, "mimeType", "application/json");
		sw_json_add_str(o, "text", text);
	} else {
		json_object_put(o);
		return NULL;
	}
	arr = json_object_new_array();
	json_object_array_add(arr, o);
	res = json_object_new_object();
	json_object_object_add(res, "contents", arr);
	return res;
}

static json_object *
prompt_arg(const char *name, const char *desc)
{
	json_object *a = json_object_new_object();

	sw_json_add_str(a, "name", name);
	sw_json_add_str(a, "description", desc);
	sw_json_add_bool(a, "required", 1);
	return a;
}

static void
fixture_prompts(json_object *arr)
{
	static const char *const names[] = { "test_simple_prompt",
		"test_prompt_with_arguments",
		"test_prompt_with_embedded_resource",
		"test_prompt_with_image" };
	json_object *p, *args;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		p = json_object_new_object();
		sw_json_add_str(p, "name", names[i]);
		sw_json_add_str(p, "description",
		    "A conformance fixture "
		    "prompt.");
		args = json_object_new_array();
		if (i == 1) {
			json_object_array_add(
			    args, prompt_arg("arg1", "First test argument"));
			json_object_array_add(
			    args, prompt_arg("arg2", "Second test argument"));
		} else if (i == 2)
			json_object_array_add(args,
			    prompt_arg(
				"resourceUri", "URI of the resource to embed"));
		json_object_object_add(p, "arguments", args);
		json_object_array_add(arr, p);
	}
}

static json_object *
message(json_object *content)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "role", "user");
	json_object_object_add(o, "content", content);
	return o;
}

static json_object *
fixture_prompt(const char *name, json_object *args)
{
	json_object *res, *msgs;
	char text[600];
	const char *a1, *a2, *uri;

	if (strncmp(name, "test_", 5) != 0)
		return NULL;
	msgs = json_object_new_array();
	if (strcmp(name, "test_simple_prompt") == 0)
		json_object_array_add(msgs,
		    message(text_block("This is a "
				       "simple prompt for testing.")));
	else if (strcmp(name, "test_prompt_with_arguments") == 0) {
		a1 = sw_json_get_str(args, "arg1");
		a2 = sw_json_get_str(args, "arg2");
		snprintf(text, sizeof(text),
		    "Prompt with arguments: "
		    "arg1='%.250s', arg2='%.250s'",
		    a1 ? a1 : "", a2 ? a2 : "");
		json_object_array_add(msgs, message(text_block(text)));
	} else if (strcmp(name, "test_prompt_with_embedded_resource") == 0) {
		uri = sw_json_get_str(args, "resourceUri");
		json_object_array_add(msgs,
		    message(resource_block(
			uri ? uri : "test://example-resource", "text/plain",
			"Embedded resource content for testing.")));
		json_object_array_add(msgs,
		    message(
			text_block("Please "
				   "process the embedded resource above.")));
	} else if (strcmp(name, "test_prompt_with_image") == 0) {
		json_object_array_add(
		    msgs, message(media_block("image", png_1x1, "image/png")));
		json_object_array_add(msgs,
		    message(text_block("Please "
				       "analyze the image above.")));
	} else {
		json_object_put(msgs);
		return NULL;
	}
	res = json_object_new_object();
	json_object_object_add(res, "messages", msgs);
	return res;
}

/* A fixture tool; the progress and logging ones send their
 * notifications on the request's stream, 50 ms apart. */
static json_object *
fixture_call(struct sw_mcp_call *call, const char *name, json_object *params)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	static const char *const logs[] = { "Tool execution started",
		"Tool processing data", "Tool execution completed" };
	int i;

	for (i = 0; i < 3; i++) {
		if (strcmp(name, "test_tool_with_progress") == 0)
			sw_mcp_call_progress(call, params, 50 * i, 100);
		else if (strcmp(name, "test_tool_with_logging") == 0)
			sw_mcp_call_log(call, "info", logs[i]);
		else
			break;
		if (i < 2)
			nanosleep(&nap, NULL);
	}
	return fixture_result(name);
}

static int
fixture_subscribable(const char *uri)
{
	return strcmp(uri, "test://watched-resource") == 0;
}

/* clang-format off */
const struct sw_mcp_extras sw_mcp_conformance_fixtures = {
	.is_tool = fixture_is_tool,
	.tools = fixture_tools_list,
	.call = fixture_call,
	.resources = fixture_resources,
	.read = fixture_read,
	.subscribable = fixture_subscribable,
	.prompts = fixture_prompts,
	.prompt = fixture_prompt,
};
/* clang-format on */
