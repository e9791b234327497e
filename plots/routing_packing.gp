# Random constant experts (Lemma 3.3 / A.8) against d: normalised separation and P[both conditions hold].
# Usage: gnuplot -e "csv='results/routing_packing.csv'; png='results/routing_packing.png'" plots/routing_packing.gp
# Writes png and, beside it, the same figure as SVG (png with .svg). Columns are read by name (study
# routing.packing); the (m, k) shapes and the title come from the CSV itself.
if (!exists("csv")) csv = 'results/routing_packing.csv'
if (!exists("png")) png = 'results/routing_packing.png'
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("grep -m1 '^# %s:' '%s' | sed 's/^# %s: *//'", key, csv, key))
title_text = meta("title")
if (title_text eq "") title_text = "Random constant experts"
title_text = title_text . ": u_j ∼ N(0, I/(2dk)) (granularity paper, Lemma 3.3 = A.8)"
# The distinct (m, k) of the CSV, as "m,k m,k ...", in order of appearance.
shapes = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} !s[$c[\"m\"] \" \" $c[\"k\"]]++{printf \"%%s,%%s \", $c[\"m\"], $c[\"k\"]}' '%s'", csv))
nshapes = words(shapes)
mm(i) = int(word(shapes, i)[1:strstrt(word(shapes, i), ",") - 1])
kk(i) = int(word(shapes, i)[strstrt(word(shapes, i), ",") + 1:])
colors = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f"
color(i) = word(colors, (i - 1) % 8 + 1)
is(i) = column("m") == mm(i) && column("k") == kk(i)

set encoding utf8
set datafile separator comma
set datafile columnheaders
stats csv using "d" name "D" nooutput
do for [out in "png svg"] {
  if (out eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1500,660 enhanced font ",11" } else { set terminal png size 1500,620 }
    set output png
  } else {
    set terminal svg size 1500,660 enhanced font ",11" background "white"
    set output svg
  }
  set multiplot layout 1, 2 title title_text
  set grid
  set xlabel "d"
  set xrange [0:D_max * 1.02]
  set ylabel "min over pairs of ||u_S - u_S'||^2 4k / |S {/Symbol D} S'|"
  set key bottom right box opaque
  set yrange [0:*]
  plot for [i=1:nshapes] csv using (is(i) ? column("d") : 1/0):"min_separation_q10":"min_separation_q90" \
         with filledcurves fs transparent solid 0.15 lc rgb color(i) notitle, \
       for [i=1:nshapes] csv using (is(i) ? column("d") : 1/0):"min_separation_mean" with linespoints pt 7 ps 0.7 lw 2 lc rgb color(i) \
         title sprintf("(m, k) = (%d, %d): mean, 10-90%% band", mm(i), kk(i)), \
       1 with lines dt 2 lw 2 lc rgb "black" title "separation condition (>= 1)"
  set ylabel "P[boundedness and separation both hold]"
  set yrange [-0.02:1.02]
  set key outside below center box opaque maxrows 3 font ",10"
  set xlabel "d" offset 0, 0.6
  plot for [i=1:nshapes] csv using (is(i) ? column("d") : 1/0):"p_both" with linespoints pt 7 ps 0.7 lw 2 lc rgb color(i) \
         title sprintf("(%d, %d) Monte-Carlo", mm(i), kk(i)), \
       for [i=1:nshapes] csv using (is(i) ? column("d") : 1/0):(1 - column("fail_bound_exact")) with lines dt 3 lw 1.5 lc rgb color(i) notitle, \
       for [i=1:nshapes] csv using (is(i) ? column("d") : 1/0):(1 - column("fail_bound_printed")) with lines dt 2 lw 1.5 lc rgb color(i) notitle, \
       NaN with lines dt 3 lw 1.5 lc rgb "gray30" title "1 - union bound, exact chi-square tails", \
       NaN with lines dt 2 lw 1.5 lc rgb "gray30" title "1 - union bound as printed (e^{-d/8}, e^{-d/16})"
  unset multiplot
  set output
  set xlabel "d" offset 0, 0
}
