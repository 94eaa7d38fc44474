// The one zod import of the engine and host: tree-shakable `zod/mini`, with zod's English messages registered (`zod/mini` registers no locale, and people read these messages when their input is rejected).
import { config, locales } from 'zod/mini';

config(locales.en());

export * from 'zod/mini';
