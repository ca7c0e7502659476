// The app and route-plugin types both APIs are built with, apart from the factory so that modules the factory
// registers (docs.ts) can name them without importing it back.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.ts';

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger, TypeBoxTypeProvider>;
export type RoutePlugin = FastifyPluginAsync<Record<never, never>, RawServerDefault, TypeBoxTypeProvider>;
