import { createRequire } from 'node:module';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';

// OpenTelemetry tracing of jobs: the SDK's interceptors make a span of each workflow run and each
// activity (model calls, tool calls), and the tool activity adds the lock waits; all of a job's
// spans share its trace. Spans go to the span processor: an OTLP exporter (DAGENT_TRACING=otlp,
// the endpoint from OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), the console
// (DAGENT_TRACING=console), or the library's own.

export interface TracingOptions {
  spanProcessor: SpanProcessor;
  /** `service.name` of the spans (default durable-agent). */
  serviceName?: string;
}

/** The workflow interceptor module the workflow bundle must include for workflow spans. */
export const TRACING_WORKFLOW_MODULE = createRequire(import.meta.url).resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);

let registered: SpanProcessor | undefined;

/**
 * The worker plugin that traces, after registering the process's tracer provider (activity spans
 * and ours use it). One provider per process: a second worker must use the same span processor.
 */
export function tracingPlugin(t: TracingOptions): OpenTelemetryPlugin {
  const resource = new Resource({ 'service.name': t.serviceName ?? 'durable-agent' });
  if (!registered) {
    const provider = new BasicTracerProvider({ resource, spanProcessors: [t.spanProcessor] });
    provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
    registered = t.spanProcessor;
  } else if (registered !== t.spanProcessor) {
    throw new Error('Tracing is already set up in this process with another span processor.');
  }
  return new OpenTelemetryPlugin({ spanProcessor: t.spanProcessor, resource });
}

/** The span processor for DAGENT_TRACING (checked in src/config.ts). */
export function tracingFor(mode: 'otlp' | 'console' | undefined): TracingOptions | undefined {
  if (mode === 'otlp') return { spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()) };
  if (mode === 'console') return { spanProcessor: new SimpleSpanProcessor(new ConsoleSpanExporter()) };
  return undefined;
}
