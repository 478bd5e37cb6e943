// SPDX-License-Identifier: MIT
// gcev-allocs-oracle (issue 24): TraceEvent 4.0.0's view of each allocation event of a .nettrace,
// as JSONL, for tests/allocs/test_allocs_oracle.c to hold `gcev allocs --samples` to.
//
//   gcev-allocs-oracle TRACE.nettrace [-o OUT.jsonl]
//
// TraceLog.CreateFromEventPipeDataFile converts the trace (TraceEvent's own symbolization of
// stacks: managed frames from the method events, MethodLoadVerbose and the rundown's
// MethodDCStartVerbose/MethodDCEndVerbose), then, for every GCAllocationTick, AllocationSampled
// and GCSampledObjectAllocationHigh/Low event in time order, one line:
//   {"record":"sample","qpc","thread","event","type","type_id","kind","size","amount",
//    "frames":[{"method","module","address"}...]}      frames innermost first; method "" when
//                                                      TraceEvent cannot name the address
// then {"record":"end","samples":N,"frames":F,"unresolved":U,"traceevent":VERSION}.
using System.Reflection;
using System.Text;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace Gcev.AllocsOracle;

internal static class Program
{
    private static int Main(string[] args)
    {
        string? path = null, outPath = null;
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "-o" && i + 1 < args.Length)
                outPath = args[++i];
            else
                path = args[i];
        }
        if (path == null)
        {
            Console.Error.WriteLine("usage: gcev-allocs-oracle TRACE.nettrace [-o OUT.jsonl]");
            return 2;
        }
        string etlx = Path.Combine(Path.GetTempPath(), $"gcev-allocs-{Environment.ProcessId}.etlx");
        try
        {
            TraceLog.CreateFromEventPipeDataFile(path, etlx);
            using var log = new TraceLog(etlx);
            using TextWriter w = outPath == null ? Console.Out : new StreamWriter(outPath, false, new UTF8Encoding(false), 1 << 16);
            long samples = 0, frames = 0, unresolved = 0;
            foreach (TraceEvent ev in log.Events)
            {
                string? type = null;
                ulong typeId = 0, size = 0, amount = 0;
                int kind = 0;
                string name;
                switch (ev)
                {
                    case GCAllocationTickTraceData t:
                        name = "GCAllocationTick";
                        type = t.TypeName;
                        typeId = (ulong)t.TypeID;
                        kind = (int)t.AllocationKind;
                        amount = (ulong)t.AllocationAmount64;
                        size = t.Version >= 4 ? (ulong)t.ObjectSize : 0;
                        break;
                    case AllocationSampledTraceData s:
                        name = "AllocationSampled";
                        type = s.TypeName;
                        typeId = (ulong)s.TypeID;
                        kind = (int)s.AllocationKind;
                        size = (ulong)s.ObjectSize;
                        break;
                    case GCSampledObjectAllocationTraceData o:
                        name = "GCSampledObjectAllocation";
                        typeId = (ulong)o.TypeID;
                        type = "";
                        amount = (ulong)o.TotalSizeForTypeSample;
                        size = o.ObjectCountForTypeSample > 0 ? (ulong)o.TotalSizeForTypeSample / (ulong)o.ObjectCountForTypeSample : 0;
                        break;
                    default:
                        continue;
                }
                samples++;
                var sb = new StringBuilder();
                sb.Append("{\"record\":\"sample\",\"qpc\":").Append(ev.TimeStampQPC);
                sb.Append(",\"thread\":").Append(ev.ThreadID);
                sb.Append(",\"event\":\"").Append(name).Append('"');
                sb.Append(",\"type\":"); Str(sb, type ?? "");
                sb.Append(",\"type_id\":").Append(typeId);
                sb.Append(",\"kind\":").Append(kind);
                sb.Append(",\"size\":").Append(size);
                sb.Append(",\"amount\":").Append(amount);
                sb.Append(",\"frames\":[");
                TraceCallStack? cs = ev.CallStack();
                bool first = true;
                while (cs != null)
                {
                    TraceCodeAddress ca = cs.CodeAddress;
                    string method = ca.Method != null ? ca.FullMethodName : "";
                    if (method.Length == 0)
                        unresolved++;
                    frames++;
                    if (!first)
                        sb.Append(',');
                    first = false;
                    sb.Append("{\"method\":"); Str(sb, method);
                    sb.Append(",\"module\":"); Str(sb, ca.ModuleName ?? "");
                    sb.Append(",\"address\":").Append(ca.Address);
                    sb.Append('}');
                    cs = cs.Caller;
                }
                sb.Append("]}");
                w.WriteLine(sb.ToString());
            }
            string version = typeof(TraceEvent).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "?";
            w.WriteLine($"{{\"record\":\"end\",\"samples\":{samples},\"frames\":{frames},\"unresolved\":{unresolved},\"traceevent\":\"{version}\"}}");
        }
        finally
        {
            try { File.Delete(etlx); } catch (IOException) { }
        }
        return 0;
    }

    private static void Str(StringBuilder sb, string s)
    {
        sb.Append('"');
        foreach (char c in s)
        {
            if (c == '"' || c == '\\')
                sb.Append('\\').Append(c);
            else if (c < 0x20)
                sb.Append("\\u").Append(((int)c).ToString("x4"));
            else
                sb.Append(c);
        }
        sb.Append('"');
    }
}
