#!/usr/bin/env node
// The compiled CLI; `npm install` builds dist/ through the `prepare` script.
import '../dist/cli.js';
