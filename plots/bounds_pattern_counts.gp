# Distinct top-k routing patterns of random linear routers vs Eq. 13 and the arrangement bound.
# Usage: gnuplot -e "csv='results/bounds_pattern_counts.csv'; png='results/bounds_pattern_counts.png'" plots/bounds_pattern_counts.gp
# Writes png and, beside it, the same figure as SVG (png with .svg). Columns are read by name (study
# bounds.patterns: m, d, T, k, routers, log_patterns, log_eq13_bound, ...); the input dimensions d,
# T, k and the title come from the CSV itself.
if (!exists("csv")) csv = 'results/bounds_pattern_counts.csv'
if (!exists("png")) png = 'results/bounds_pattern_counts.png'

set encoding utf8
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -1", key, csv))
# Distinct values of a column in order of appearance, and a column's value in the first data row.
distinct(col) = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} !s[$c[\"%s\"]]++{printf \"%%s \", $c[\"%s\"]}' '%s'", col, col, csv))
first(col) = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} {print $c[\"%s\"]; exit}' '%s'", col, csv))
title_text = meta("title")
if (title_text eq "") title_text = sprintf("Distinct top-%s routing patterns of random linear routers (T = %s)", first("k"), first("T"))
ds = distinct("d")
nd = words(ds)
d1 = word(ds, 1) + 0
l10 = log(10)
is(i) = column("d") == word(ds, i) + 0
do for [out in "png svg"] {
  if (out eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1000,700 enhanced font ",11" } else { set terminal png size 1000,700 }
    set output png
  } else {
    set terminal svg size 1000,700 enhanced font ",11" dynamic background "white"
    set output svg
  }
  set datafile separator comma
  set datafile columnheaders
  set title sprintf("%s\nlog_{10} scale; Eq. 13 with d_N = d T", title_text)
  set grid
  set logscale x 2
  set xlabel "points m"
  set ylabel "log_{10} number of patterns"
  set key outside right
  set yrange [0:*]
  plot for [i = 1:nd] csv using "m":(is(i) ? column("log_patterns") / l10 : 1/0) with linespoints lw 2 pt 7 lc i \
         title sprintf("measured, d = %s", word(ds, i)), \
       for [i = 1:nd] csv using "m":(is(i) ? column("log_arrangement_bound") / l10 : 1/0) with lines dt 2 lc i \
         title sprintf("arrangement bound, d = %s", word(ds, i)), \
       for [i = 1:nd] csv using "m":(is(i) ? column("log_eq13_bound") / l10 : 1/0) with lines dt 3 lc i \
         title sprintf("Eq. 13, d = %s", word(ds, i)), \
       csv using "m":(column("d") == d1 ? column("log_all_patterns") / l10 : 1/0) with lines lw 2 lc rgb "black" \
         title "all C(T,k)^m tuples", \
       csv using "m":(column("d") == d1 ? log10(column("routers")) : 1/0) with lines lw 1 lc rgb "gray" \
         title "routers drawn (sample limit)"
}
