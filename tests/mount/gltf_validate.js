// SPDX-License-Identifier: MIT
// Validates a glTF file with the Khronos glTF validator, which npm's
// gltf-validator package offers as a JavaScript API only (no command):
//
//   NODE_PATH=$(npm root -g) node tests/mount/gltf_validate.js FILE.glb
//
// prints "errors N warnings N infos N hints N", then each issue (severity
// 0 error, 1 warning, 2 info, 3 hint; code; JSON pointer; message), and
// exits 1 when there are errors, 2 when the file could not be validated.
'use strict';
const fs = require('fs');
const validator = require('gltf-validator');

validator.validateBytes(new Uint8Array(fs.readFileSync(process.argv[2])), {maxIssues: 0})
	.then((report) => {
		const issues = report.issues;
		console.log(`errors ${issues.numErrors} warnings ${issues.numWarnings} ` +
			`infos ${issues.numInfos} hints ${issues.numHints}`);
		for (const m of issues.messages)
			console.log(`${m.severity} ${m.code} ${m.pointer || '-'} ${m.message}`);
		process.exit(issues.numErrors ? 1 : 0);
	})
	.catch((e) => {
		console.error(`gltf_validate: ${e}`);
		process.exit(2);
	});
