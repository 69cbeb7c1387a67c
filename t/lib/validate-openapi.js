// validate-openapi.js FILE: validate an OpenAPI document with
// @apidevtools/swagger-parser (schema + semantic checks).  Exit 0 when
// valid; prints the validator's message and exits 1 otherwise.
const path = require("path");
const SwaggerParser = require(path.join(__dirname, "..", "node_modules",
    "@apidevtools", "swagger-parser"));

SwaggerParser.validate(process.argv[2])
    .then((api) => {
        console.log("valid: " + api.info.title + " " + api.info.version +
            ", " + Object.keys(api.paths).length + " paths");
        process.exit(0);
    })
    .catch((err) => {
        console.log("invalid: " + err.message);
        process.exit(1);
    });
