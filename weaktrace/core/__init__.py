"""The core: primitives with their rules, tracers, contexts, bind and promotion."""
