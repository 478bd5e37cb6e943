// SPDX-License-Identifier: MIT
// TraceEvent's own GC analysis (TraceLoadedDotNetRuntime / TraceGC / GCStats) as JSON records:
// every public field and property of each TraceGC (recursively: per-heap histories, heap stats,
// global history, LOH compaction, fit buckets, mark times, BGC revisit info, ...), every
// parameterless public method (GetPinnedObjectSizes, GetTotalGCTime, IsNotCompacting, ...) and
// every per-generation method (SurvivalPercent, GenSizeAfterMB, GenFragmentationMB, ...) for
// each of Gens.Gen0..GenPinObj; doubles round-trip, NaN and infinities as strings.
using System.Collections;
using System.Reflection;
using System.Text;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Analysis.GC;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace Gcev.Oracle;

internal static class GcAnalysis
{
    private const int MaxDepth = 6;

    // Methods that are not metrics: they would print or mutate, or they need arguments we
    // do not have (CPU samples, a TextWriter).
    private static readonly HashSet<string> SkipMethods = new(StringComparer.Ordinal)
    {
        "ToString", "GetHashCode", "GetType", "Equals", "EnsureBGCRevisitInfoAlloc", "ToXml",
    };

    // Methods that read a value another method computes and caches, called after it as TraceGC's
    // own OnEnd does: GetPinnedObjectPercentage divides the pinnedObjectSizes field, which only
    // GetPinnedObjectSizes fills (else -1). OnEnd calls both on every complete GC; on a GC that
    // never completed, name order alone would have the percentage see -1 (0 or -1 whatever the pins).
    private static readonly HashSet<string> CalledAfter = new(StringComparer.Ordinal) { "GetPinnedObjectPercentage" };

    public static long Write(TraceEventDispatcher source, TextWriter output)
    {
        long n = 0;
        var sb = new StringBuilder(1 << 16);
        foreach (var proc in source.Processes())
        {
            var rt = proc.LoadedDotNetRuntime();
            if (rt == null)
                continue;
            foreach (TraceGC gc in rt.GC.GCs)
            {
                sb.Clear();
                sb.Append("{\"record\":\"gc\",\"process\":").Append(proc.ProcessID);
                sb.Append(",\"IsServerGCUsed\":").Append(rt.GC.Stats().IsServerGCUsed);
                sb.Append(',');
                Members(sb, gc, 0, new HashSet<object>(ReferenceEqualityComparer.Instance), comma: false);
                PerGenMethods(sb, gc);
                sb.Append('}');
                output.WriteLine(sb.ToString());
                n++;
            }
            sb.Clear();
            sb.Append("{\"record\":\"gcstats\",\"process\":").Append(proc.ProcessID);
            sb.Append(",\"runtime_version\":");
            Json.Str(sb, rt.RuntimeVersion?.ToString());
            sb.Append(',');
            Members(sb, rt.GC.Stats(), 0, new HashSet<object>(ReferenceEqualityComparer.Instance), comma: false);
            // per condemned generation (GCStats for gen 0, 1, 2) and the GC settings TraceEvent saw
            sb.Append(",\"Generations()\":");
            Value(sb, Accessors.Safe(() => rt.GC.Generations()), 1, new HashSet<object>(ReferenceEqualityComparer.Instance));
            sb.Append(",\"GCSettings\":");
            Value(sb, Accessors.Safe(() => rt.GC.GCSettings), 1, new HashSet<object>(ReferenceEqualityComparer.Instance));
            sb.Append('}');
            output.WriteLine(sb.ToString());
        }
        return n;
    }

    private static void PerGenMethods(StringBuilder sb, TraceGC gc)
    {
        var gens = new[] { Gens.Gen0, Gens.Gen1, Gens.Gen2, Gens.GenLargeObj, Gens.GenPinObj };
        foreach (var m in typeof(TraceGC).GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly)
                     .Where(m => !m.IsSpecialName && m.GetParameters().Length == 1 && m.GetParameters()[0].ParameterType == typeof(Gens))
                     .OrderBy(m => m.Name, StringComparer.Ordinal))
        {
            sb.Append(',');
            Json.Str(sb, m.Name);
            sb.Append(":[");
            for (int i = 0; i < gens.Length; i++)
            {
                if (i > 0)
                    sb.Append(',');
                Value(sb, Accessors.Safe(() => m.Invoke(gc, new object[] { gens[i] })), MaxDepth, null!);
            }
            sb.Append(']');
        }
    }

    private static void Members(StringBuilder sb, object o, int depth, HashSet<object> seen, bool comma)
    {
        var t = o.GetType();
        const BindingFlags pub = BindingFlags.Public | BindingFlags.Instance;
        foreach (var f in t.GetFields(pub).OrderBy(f => f.MetadataToken))
        {
            if (comma)
                sb.Append(',');
            comma = true;
            Json.Str(sb, f.Name);
            sb.Append(':');
            Value(sb, Accessors.Safe(() => f.GetValue(o)), depth + 1, seen);
        }
        foreach (var p in t.GetProperties(pub).Where(p => p.GetIndexParameters().Length == 0).OrderBy(p => p.MetadataToken))
        {
            if (comma)
                sb.Append(',');
            comma = true;
            Json.Str(sb, p.Name);
            sb.Append(':');
            Value(sb, Accessors.Safe(() => p.GetValue(o)), depth + 1, seen);
        }
        foreach (var m in t.GetMethods(pub).Where(m => !m.IsSpecialName && m.GetParameters().Length == 0 && m.ReturnType != typeof(void)
                                                         && !m.IsGenericMethod && !SkipMethods.Contains(m.Name)
                                                         && m.DeclaringType != typeof(object))
                     .OrderBy(m => CalledAfter.Contains(m.Name) ? 1 : 0)
                     .ThenBy(m => m.Name, StringComparer.Ordinal))
        {
            if (comma)
                sb.Append(',');
            comma = true;
            Json.Str(sb, m.Name + "()");
            sb.Append(':');
            Value(sb, Accessors.Safe(() => m.Invoke(o, null)), depth + 1, seen);
        }
        // GetCondemnedReasons(Dictionary<CondemnedReasonGroup, int>) fills a dictionary.
        if (o is TraceGC gc)
        {
            if (comma)
                sb.Append(',');
            var reasons = new Dictionary<CondemnedReasonGroup, int>();
            object? r = Accessors.Safe(() => { gc.GetCondemnedReasons(reasons); return null; });
            sb.Append("\"GetCondemnedReasons()\":");
            if (r is string err)
                Json.Str(sb, err);
            else
                Value(sb, reasons, depth + 1, seen);
        }
    }

    private static void Value(StringBuilder sb, object? v, int depth, HashSet<object> seen)
    {
        if (Json.IsScalar(v))
        {
            Json.Scalar(sb, v);
            return;
        }
        if (depth > MaxDepth)
        {
            sb.Append("\"depth-limit\"");
            return;
        }
        var t = v!.GetType();
        if (!t.IsValueType)
        {
            seen ??= new HashSet<object>(ReferenceEqualityComparer.Instance);
            if (!seen.Add(v))
            {
                sb.Append("\"cycle\"");
                return;
            }
        }
        try
        {
            if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(Nullable<>))
            {
                Json.Scalar(sb, v);
                return;
            }
            if (v is IDictionary dict)
            {
                sb.Append('{');
                bool first = true;
                var entries = new List<(string, object?)>();
                foreach (DictionaryEntry e in dict)
                {
                    string key = e.Key is Enum en ? Convert.ToInt64(en, System.Globalization.CultureInfo.InvariantCulture).ToString(System.Globalization.CultureInfo.InvariantCulture)
                                                   + ":" + en : Convert.ToString(e.Key, System.Globalization.CultureInfo.InvariantCulture) ?? "";
                    entries.Add((key, e.Value));
                }
                foreach (var (key, val) in entries.OrderBy(e => e.Item1, StringComparer.Ordinal))
                {
                    if (!first)
                        sb.Append(',');
                    first = false;
                    Json.Str(sb, key);
                    sb.Append(':');
                    Value(sb, val, depth + 1, seen);
                }
                sb.Append('}');
                return;
            }
            if (v is IEnumerable seq)
            {
                sb.Append('[');
                bool first = true;
                foreach (var e in seq)
                {
                    if (!first)
                        sb.Append(',');
                    first = false;
                    Value(sb, e, depth + 1, seen);
                }
                sb.Append(']');
                return;
            }
            sb.Append('{');
            Members(sb, v, depth, seen, comma: false);
            sb.Append('}');
        }
        finally
        {
            if (!t.IsValueType)
                seen.Remove(v);
        }
    }
}
