// SPDX-License-Identifier: MIT
// gcev-oracle: Microsoft's TraceEvent 4.0.0 as the judge of gcev's decode (issue 10 item 3).
//
//   gcev-oracle --manifest manifest/gc.man [--no-coverage] [--no-gcs] TRACE.nettrace > TRACE.oracle.jsonl
//
// Prints JSONL (format in tests/runtime/README.md): a "trace" record, one "event" record per
// event of gcev's GC set (the (provider, id) pairs of the manifest) with every payload field as
// TraceEvent gives it, a "count" record per (provider, id, version) of all events, one "gc"
// record per GC of TraceEvent's own analysis (TraceLoadedDotNetRuntime / TraceGC), a "gcstats"
// record per process, and an "end" record. Exit status 0; 3 when some payload byte of a GC event
// is not accounted for by any field TraceEvent reads (the message says which); 2 on bad usage.
using System.Reflection;
using System.Text;
using System.Xml;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace Gcev.Oracle;

internal static class Program
{
    private static int Main(string[] args)
    {
        string? manifest = null, trace = null, outPath = null;
        bool coverage = true, gcs = true;
        for (int i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--manifest": manifest = args[++i]; break;
                case "--no-coverage": coverage = false; break;
                case "--no-gcs": gcs = false; break;
                case "-o": outPath = args[++i]; break;
                default:
                    if (args[i].StartsWith('-') || trace != null)
                        return Usage();
                    trace = args[i];
                    break;
            }
        }
        if (manifest == null || trace == null)
            return Usage();
        var gcSet = LoadGcSet(manifest);
        using var outFile = outPath == null ? null : new StreamWriter(outPath, false, new UTF8Encoding(false), 1 << 16);
        var output = outFile ?? new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16);
        output.NewLine = "\n";
        var dumper = new EventDumper(gcSet, coverage, output);
        int rc = dumper.Run(trace, gcs);
        output.Flush();
        return rc;
    }

    private static int Usage()
    {
        Console.Error.WriteLine("usage: gcev-oracle --manifest gc.man [--no-coverage] [--no-gcs] [-o OUT] TRACE");
        return 2;
    }

    /// <summary>The (provider name, event id) pairs of the manifest: gcev's GC set.</summary>
    private static HashSet<(string, int)> LoadGcSet(string path)
    {
        var set = new HashSet<(string, int)>();
        var doc = new XmlDocument();
        doc.Load(path);
        foreach (XmlElement prov in doc.GetElementsByTagName("provider"))
        {
            string name = prov.GetAttribute("name");
            foreach (XmlElement ev in prov.GetElementsByTagName("event"))
                set.Add((name, int.Parse(ev.GetAttribute("value"), System.Globalization.CultureInfo.InvariantCulture)));
        }
        if (set.Count == 0)
            throw new InvalidDataException($"{path}: no <event> in any <provider>");
        return set;
    }
}

/// <summary>
/// One value TraceEvent gives for an event: a payload scalar (PayloadNames/PayloadValue), or a
/// member of an element of a struct array read through TraceEvent's typed accessors.
/// </summary>
internal sealed class Getter
{
    public required string Array;   // "" for a scalar
    public required int Index;      // element index (-1 for a scalar)
    public required string Name;
    public bool Raw;                // a raw value beside a derived one (Accessors.Lossy)
    public bool Dynamic;            // an inner GCDynamicEvent field (Accessors.DynamicImpl)
    public required Func<object?> Get;
}

internal sealed class EventDumper
{
    private readonly HashSet<(string, int)> _gcSet;
    private readonly bool _coverage;
    private readonly TextWriter _out;
    private readonly Dictionary<(string, int, int), long> _counts = new();
    private readonly StringBuilder _sb = new(1 << 16);
    private long _events, _gcEvents, _values, _bytesChecked, _paddingBytes, _failures, _unparsed;
    private readonly List<string> _failureMessages = new();
    private long _noParser;

    // GC events TraceEvent 4.0.0 has no template for (they arrive as "EventID(N)" with no
    // fields): ClrTraceEventParser.cs registers nothing for Runtime 200/201
    // (IncreaseMemoryPressure, DecreaseMemoryPressure), ClrPrivateTraceEventParser.cs nothing
    // for Private 26 (BGC1stSweepEnd). Any other unparsed GC event stops the oracle.
    private static readonly HashSet<(string, int)> NoParser = new()
    {
        ("Microsoft-Windows-DotNETRuntime", 200),
        ("Microsoft-Windows-DotNETRuntime", 201),
        ("Microsoft-Windows-DotNETRuntimePrivate", 26),
    };

    public EventDumper(HashSet<(string, int)> gcSet, bool coverage, TextWriter output)
    {
        _gcSet = gcSet;
        _coverage = coverage;
        _out = output;
    }

    public int Run(string path, bool gcs)
    {
        // A perfcollect (LTTng, CTF) .trace.zip goes to TraceEvent's CTF reader; everything else is EventPipe.
        bool ctf = path.EndsWith(".trace.zip", StringComparison.OrdinalIgnoreCase);
        using TraceEventDispatcher source = ctf ? new CtfTraceEventSource(path) : new EventPipeEventSource(path);
        // Typed templates for the runtime, private and rundown providers (the Clr parser is
        // source.Clr; GCDynamicEvent comes with it).
        source.Clr.All += _ => { };
        var priv = new ClrPrivateTraceEventParser(source);
        priv.All += _ => { };
        var rundown = new ClrRundownTraceEventParser(source);
        rundown.All += _ => { };
        source.AllEvents += OnEvent;
        if (gcs)
            source.NeedLoadedDotNetRuntimes();

        _sb.Clear();
        _sb.Append("{\"record\":\"trace\",\"file\":");
        Json.Str(_sb, Path.GetFileName(path));
        _sb.Append(",\"traceevent\":");
        Json.Str(_sb, typeof(TraceEvent).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion);
        if (ctf)
            _sb.Append(",\"format\":\"ctf\"");
        _sb.Append(",\"pointer_size\":").Append(source.PointerSize);
        _sb.Append(",\"cpu_count\":").Append(source.NumberOfProcessors);
        _sb.Append(",\"session_start_utc\":");
        Json.Scalar(_sb, source.SessionStartTime);
        _sb.Append('}');
        _out.WriteLine(_sb.ToString());

        source.Process();

        foreach (var kv in _counts.OrderBy(k => k.Key.Item1, StringComparer.Ordinal).ThenBy(k => k.Key.Item2).ThenBy(k => k.Key.Item3))
        {
            _sb.Clear();
            _sb.Append("{\"record\":\"count\",\"provider\":");
            Json.Str(_sb, kv.Key.Item1);
            _sb.Append(",\"id\":").Append(kv.Key.Item2).Append(",\"version\":").Append(kv.Key.Item3);
            _sb.Append(",\"count\":").Append(kv.Value).Append(",\"gc_set\":")
               .Append(_gcSet.Contains((kv.Key.Item1, kv.Key.Item2)) ? "true" : "false").Append('}');
            _out.WriteLine(_sb.ToString());
        }

        long gcCount = 0;
        if (gcs)
            gcCount = GcAnalysis.Write(source, _out);

        _sb.Clear();
        _sb.Append("{\"record\":\"end\",\"events\":").Append(_events);
        _sb.Append(",\"gc_events\":").Append(_gcEvents);
        _sb.Append(",\"values\":").Append(_values);
        _sb.Append(",\"bytes_checked\":").Append(_bytesChecked);
        _sb.Append(",\"padding_bytes\":").Append(_paddingBytes);
        _sb.Append(",\"unparsed_gc_events\":").Append(_unparsed);
        _sb.Append(",\"no_parser_gc_events\":").Append(_noParser);
        _sb.Append(",\"events_lost\":").Append(source.EventsLost);
        _sb.Append(",\"gcs\":").Append(gcCount);
        _sb.Append(",\"coverage\":").Append(_coverage ? "true" : "false");
        _sb.Append(",\"unaccounted_events\":").Append(_failures).Append('}');
        _out.WriteLine(_sb.ToString());
        _out.Flush();
        foreach (var m in _failureMessages)
            Console.Error.WriteLine(m);
        if (_failures > 0 || _unparsed > 0)
        {
            Console.Error.WriteLine($"gcev-oracle: {path}: {_failures} GC event(s) with payload bytes no TraceEvent field reads, "
                                    + $"{_unparsed} GC event(s) TraceEvent has no parser for");
            return 3;
        }
        return 0;
    }

    private void OnEvent(TraceEvent data)
    {
        _events++;
        string provider = data.ProviderName;
        int id = (int)data.ID;
        if (data.GetType().Name == Accessors.DynamicImpl)
            id = 39; // TraceEvent rewrote the id of a known inner event (GCDynamicTraceEventParser.cs SetMetadataFromTemplate)
        int version = data.Version;
        var key = (provider, id, version);
        _counts[key] = _counts.TryGetValue(key, out long c) ? c + 1 : 1;
        if (!_gcSet.Contains((provider, id)))
            return;
        _gcEvents++;
        bool unparsed = data.GetType() == typeof(TraceEvent) || data.GetType().Name == "UnhandledTraceEvent"
                        || data.GetType().Name == "DynamicTraceEventData";
        bool knownGap = unparsed && NoParser.Contains((provider, id));
        var getters = unparsed ? new List<Getter>() : Accessors.For(data);
        _values += getters.Count;

        _sb.Clear();
        _sb.Append("{\"record\":\"event\",\"provider\":");
        Json.Str(_sb, provider);
        _sb.Append(",\"id\":").Append(id).Append(",\"version\":").Append(version);
        _sb.Append(",\"name\":");
        Json.Str(_sb, data.EventName);
        _sb.Append(",\"qpc\":").Append(data.TimeStampQPC);
        _sb.Append(",\"ms\":");
        Json.Double(_sb, data.TimeStampRelativeMSec);
        _sb.Append(",\"thread\":").Append(data.ThreadID);
        _sb.Append(",\"size\":").Append(data.EventDataLength);
        if (unparsed)
        {
            // No TraceEvent field to compare: the payload bytes as they are, so the C side can
            // at least hold its decode of them against the same bytes.
            if (!knownGap)
                _unparsed++;
            else
                _noParser++;
            _sb.Append(",\"unparsed\":true,\"payload\":");
            Json.Scalar(_sb, data.EventData());
        }
        _sb.Append(",\"fields\":{");
        bool first = true;
        int k = 0;
        for (; k < getters.Count && getters[k].Array.Length == 0 && !getters[k].Raw && !getters[k].Dynamic; k++)
        {
            if (!first)
                _sb.Append(',');
            first = false;
            Json.Str(_sb, getters[k].Name);
            _sb.Append(':');
            Json.Scalar(_sb, Accessors.Safe(getters[k].Get));
        }
        _sb.Append('}');
        if (k < getters.Count && getters[k].Dynamic)
        {
            _sb.Append(",\"dynamic\":{\"name\":");
            Json.Str(_sb, data.EventName);
            _sb.Append(",\"fields\":{");
            first = true;
            for (; k < getters.Count && getters[k].Dynamic; k++)
            {
                if (!first)
                    _sb.Append(',');
                first = false;
                Json.Str(_sb, getters[k].Name);
                _sb.Append(':');
                Json.Scalar(_sb, Accessors.Safe(getters[k].Get));
            }
            _sb.Append("}}");
        }
        if (k < getters.Count && getters[k].Raw)
        {
            _sb.Append(",\"raw\":{");
            first = true;
            for (; k < getters.Count && getters[k].Raw; k++)
            {
                if (!first)
                    _sb.Append(',');
                first = false;
                Json.Str(_sb, getters[k].Name);
                _sb.Append(':');
                Json.Scalar(_sb, Accessors.Safe(getters[k].Get));
            }
            _sb.Append('}');
        }
        if (k < getters.Count)
        {
            _sb.Append(",\"arrays\":{");
            string? arr = null;
            int elem = -2;
            for (; k < getters.Count; k++)
            {
                var g = getters[k];
                if (g.Array != arr)
                {
                    if (arr != null)
                        _sb.Append("}],");
                    Json.Str(_sb, g.Array);
                    _sb.Append(":[{");
                    arr = g.Array;
                    elem = g.Index;
                }
                else if (g.Index != elem)
                {
                    _sb.Append("},{");
                    elem = g.Index;
                }
                else
                {
                    _sb.Append(',');
                }
                Json.Str(_sb, g.Name);
                _sb.Append(':');
                Json.Scalar(_sb, Accessors.Safe(g.Get));
            }
            _sb.Append("}]}");
        }
        if (_coverage && !unparsed)
            CheckCoverage(data, getters);
        _sb.Append('}');
        _out.WriteLine(_sb.ToString());
    }

    /// <summary>
    /// Every payload byte must change some value TraceEvent gives when it is changed: flip each
    /// byte (xor 0xFF, then restore) and look for the value that moved, starting at the one the
    /// previous byte moved (fields are in payload order, so this is one or two reads a byte).
    /// A byte that moves nothing is unaccounted for, except the padding TraceEvent's own element
    /// layout skips (GCLOHCompact: SizeOfGCLOHCompactInfo is 32 on 64-bit, fields read at
    /// 0/4/8/16/24, ClrTraceEventParser.cs GCLOHCompactTraceData.Info).
    /// </summary>
    private unsafe void CheckCoverage(TraceEvent data, List<Getter> getters)
    {
        int n = data.EventDataLength;
        if (n == 0)
            return;
        byte* p = (byte*)data.DataStart;
        var before = new string[getters.Count];
        var tmp = new StringBuilder(64);
        for (int i = 0; i < getters.Count; i++)
            before[i] = Canon(tmp, getters[i]);
        // GCEV_ORACLE_MAP=<TraceEvent event name>: print, for the first such event, which values
        // each of its first 100 payload bytes moves (to find what TraceEvent reads where).
        if (Environment.GetEnvironmentVariable("GCEV_ORACLE_MAP") == data.EventName && !s_mapped)
        {
            s_mapped = true;
            for (int off = 0; off < Math.Min(n, 100); off++)
            {
                byte o = p[off];
                p[off] = (byte)(o ^ 0xFF);
                var changed = new List<string>();
                for (int g = 0; g < getters.Count; g++)
                    if (Canon(tmp, getters[g]) != before[g])
                        changed.Add($"{getters[g].Array}[{getters[g].Index}].{getters[g].Name}={Canon(tmp, getters[g])}");
                p[off] = o;
                Console.Error.WriteLine($"map {off} ({o:x2}): {string.Join(" ", changed)}");
            }
        }
        int last = 0;
        var unaccounted = new List<int>();
        for (int off = 0; off < n; off++)
        {
            byte orig = p[off];
            p[off] = (byte)(orig ^ 0xFF);
            int hit = -1;
            try
            {
                Accessors.Refix(data);
                for (int t = 0; t < getters.Count; t++)
                {
                    int g = (last + t) % getters.Count;
                    if (Canon(tmp, getters[g]) != before[g])
                    {
                        hit = g;
                        break;
                    }
                }
            }
            finally
            {
                p[off] = orig;
                Accessors.Refix(data);
            }
            if (hit >= 0)
                last = hit;
            else
                unaccounted.Add(off);
        }
        _bytesChecked += n;
        if (unaccounted.Count == 0)
            return;
        if (data is GCLOHCompactTraceData && data.PointerSize == 8)
        {
            int padding = unaccounted.Count(o => o >= 4 && (o - 4) % 32 >= 12 && (o - 4) % 32 < 16);
            if (padding == unaccounted.Count)
            {
                _paddingBytes += padding;
                _sb.Append(",\"padding_bytes\":").Append(padding);
                return;
            }
        }
        _failures++;
        if (_failureMessages.Count < 50)
            _failureMessages.Add($"gcev-oracle: {data.ProviderName} id {(int)data.ID} v{data.Version} ({data.EventName}) at qpc {data.TimeStampQPC}: "
                                 + $"{unaccounted.Count} of {n} payload bytes read by no TraceEvent field: offsets "
                                 + string.Join(",", unaccounted.Take(24)) + (unaccounted.Count > 24 ? ",..." : ""));
        _sb.Append(",\"unaccounted_bytes\":[").Append(string.Join(",", unaccounted)).Append(']');
    }

    private static bool s_mapped;

    private static string Canon(StringBuilder tmp, Getter g)
    {
        tmp.Clear();
        Json.Scalar(tmp, Accessors.Safe(g.Get));
        return tmp.ToString();
    }
}
