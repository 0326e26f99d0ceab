package dev.levee.anthropic.stream;

import dev.levee.anthropic.message.TokenUsage;
import dev.levee.core.chain.Target;

/**
 * The tokens one target's calls used for a client's stream ({@link ResilientStream#usage()}): what
 * is counted, and priced, under that target's model.
 *
 * @param target the target (upstream and model) that served that part of the stream
 * @param usage in tokens: the input and cache tokens its calls reported, and as output tokens the
 *     part of the client's answer they produced
 */
public record TargetUsage(Target target, TokenUsage usage) {}
